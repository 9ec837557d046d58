-- Every receipt email dzpay tried to send: who asked, when, for which payment, and how it
-- ended. receipts alone reads and writes here.
create table sends (
  id uuid primary key,
  merchant_id uuid not null,
  mode text not null check (mode in ('test', 'live')),
  -- The API key that asked (its id; keys themselves are never stored in clear anywhere).
  key_id uuid not null,
  payment_id uuid not null,
  -- Enough of the address to answer "was my receipt sent, and where?" (first character
  -- and domain), not the address itself.
  recipient text not null,
  language text not null check (language in ('ar', 'fr', 'en')),
  -- 'sending' until the mail server answered: a row left there means the process died
  -- mid-send, and the email may or may not have left.
  outcome text not null check (outcome in ('sending', 'sent', 'refused', 'limited')),
  -- The server's reply (bounded), or why it failed.
  smtp_response text check (octet_length(smtp_response) <= 2048),
  message_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index sends_payment on sends (merchant_id, mode, payment_id);
