/**
 * Renders resources/icons/icon.svg into what the installers need (npm run icons; npm run build
 * runs it too):
 *   resources/icons/build/png/<N>x<N>.png  16…1024, Linux (AppImage, deb) and the window icon
 *   resources/icons/build/icon.png         1024 px, electron-builder's fallback
 *   resources/icons/build/icon.icns        macOS (dmg)
 *   resources/icons/build/icon.ico         Windows (nsis)
 * SVG → PNG with resvg (@resvg/resvg-js); PNG → ICNS/ICO with png2icons. Deterministic output.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Resvg } from '@resvg/resvg-js';
import png2icons from 'png2icons';

const ICONS = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources', 'icons');
export const PNG_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024] as const;

export function renderPng(svg: string, size: number): Buffer {
  const png = new Resvg(svg, { fitTo: { mode: 'width', value: size }, background: 'rgba(0,0,0,0)' }).render().asPng();
  return Buffer.from(png);
}

export function buildIcons(outDir = join(ICONS, 'build')): string[] {
  const svg = readFileSync(join(ICONS, 'icon.svg'), 'utf8');
  mkdirSync(join(outDir, 'png'), { recursive: true });
  const written: string[] = [];
  const write = (file: string, data: Buffer): void => {
    writeFileSync(file, data);
    written.push(file);
  };
  for (const size of PNG_SIZES) write(join(outDir, 'png', `${size}x${size}.png`), renderPng(svg, size));
  const big = renderPng(svg, 1024);
  write(join(outDir, 'icon.png'), big);
  const icns = png2icons.createICNS(big, png2icons.BICUBIC2, 0);
  const ico = png2icons.createICO(big, png2icons.BICUBIC2, 0, false, true);
  if (!icns || !ico) throw new Error('png2icons could not convert the 1024 px icon');
  write(join(outDir, 'icon.icns'), icns);
  write(join(outDir, 'icon.ico'), ico);
  return written;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = buildIcons();
  process.stdout.write(`icons: wrote ${files.length} files to resources/icons/build\n`);
}
