import { html, type SafeHtml } from '../html.js';

/** What a picture's root `<svg>` says about it. */
interface PictureFrame {
  /** Its class (`run-strip`, `progress-chart`, ...): what the page's styles and scripts key on. */
  readonly className: string;
  /** What it shows, in words: an image to assistive technology, named by this. */
  readonly label: string;
  readonly width: number;
  readonly height: number;
  /** Its `data-*` attributes, by name without the prefix: the numbers it was drawn from. */
  readonly data: Readonly<Record<string, string | number | boolean>>;
}

/** A dashboard picture: `content` in an `<svg>` of `frame`'s size, class, label and data. */
export function renderSvgPicture(frame: PictureFrame, content: SafeHtml): SafeHtml {
  const data = Object.entries(frame.data).map(([name, value]) => html` data-${name}="${value}"`);
  return html`<svg
    class="${frame.className}"
    role="img"
    aria-label="${frame.label}"
    viewBox="0 0 ${frame.width} ${frame.height}"
    width="${frame.width}"
    height="${frame.height}"
    ${data}
  >
    ${content}
  </svg>`;
}
