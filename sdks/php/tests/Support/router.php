<?php

declare(strict_types=1);

// The router of ScriptedDzpay's `php -S`: records the request, answers the next queued response.

$state = (string) getenv('DZPAY_TEST_STATE');
$lock = fopen("$state/lock", 'c');
flock($lock, LOCK_EX);
$headers = [];
foreach (getallheaders() as $name => $value) {
    $headers[strtolower($name)] = $value;
}
file_put_contents("$state/requests.jsonl", json_encode([
    'method' => $_SERVER['REQUEST_METHOD'],
    'uri' => $_SERVER['REQUEST_URI'],
    'headers' => $headers,
    'body' => file_get_contents('php://input'),
], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES) . "\n", FILE_APPEND);
$script = json_decode((string) file_get_contents("$state/script.json"), true);
$answer = array_shift($script);
file_put_contents("$state/script.json", json_encode($script, JSON_THROW_ON_ERROR));
flock($lock, LOCK_UN);

while (ob_get_level() > 0) {
    ob_end_flush();
}
if ($answer === null) {
    http_response_code(500);
    header('Content-Type: text/plain');
    echo 'no scripted response left';
    return true;
}
http_response_code($answer['status']);
foreach ($answer['headers'] as $name => $value) {
    header("$name: $value");
}
if ($answer['chunks'] === null) {
    echo $answer['body'];
    return true;
}
foreach ($answer['chunks'] as $index => $chunk) {
    echo $chunk;
    flush();
    if ($index === 0 && $answer['waitFor'] !== null) {
        $deadline = microtime(true) + 5;
        while (!file_exists("$state/{$answer['waitFor']}") && microtime(true) < $deadline) {
            usleep(10_000);
        }
        if (!file_exists("$state/{$answer['waitFor']}")) {
            echo "TIMEOUT,the client did not read the first chunk before the rest was sent\r\n";
        }
    }
}
return true;
