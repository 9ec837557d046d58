import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS typed as an ES default export: under Node's interop the default
// import is module.exports, whose `default` is the function too.
const jsQR = jsQRModule.default;

/**
 * Test support: reads a QR code image back to its text, as a payer's phone would. PNG is
 * decoded with pngjs; the SVG that qrcode writes (one stroked path of `M x y.5`, `m dx 0`
 * and `h n` runs, one module per unit) is drawn module by module into pixels first.
 */
export function decodeQrPng(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data ?? null;
}

const PIXELS_PER_MODULE = 8;

export function decodeQrSvg(svg: string): string | null {
  const viewBox = /viewBox="0 0 (\d+) (\d+)"/.exec(svg);
  const path = /<path stroke="#000000" d="([^"]+)"/.exec(svg);
  if (!viewBox || !path) return null;
  const modules = Number(viewBox[1]);
  const side = modules * PIXELS_PER_MODULE;
  const pixels = new Uint8ClampedArray(side * side * 4).fill(255);
  let x = 0;
  let y = 0;
  for (const [, command, a, b] of path[1]!.matchAll(/([MmhH])(-?[\d.]+)(?: (-?[\d.]+))?/g)) {
    const first = Number(a);
    if (command === 'M') [x, y] = [first, Math.floor(Number(b))];
    else if (command === 'm') x += first;
    else {
      for (let column = x; column < x + first; column++) darken(pixels, side, column, y);
      x += first;
    }
  }
  return jsQR(pixels, side, side)?.data ?? null;
}

function darken(pixels: Uint8ClampedArray, side: number, column: number, row: number): void {
  for (let dy = 0; dy < PIXELS_PER_MODULE; dy++) {
    for (let dx = 0; dx < PIXELS_PER_MODULE; dx++) {
      const offset = ((row * PIXELS_PER_MODULE + dy) * side + column * PIXELS_PER_MODULE + dx) * 4;
      pixels.fill(0, offset, offset + 3);
    }
  }
}
