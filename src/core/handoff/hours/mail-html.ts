/** The HTML part of the bridge's e-mails: one escaper for every text from users, and the page around it. */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** Items already escaped (they may carry the bridge's own tags). */
export function htmlList(items: string[]): string {
  return `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>`;
}

export function htmlPage(body: string[]): string {
  return `<!doctype html><html><body style="font-family:sans-serif">${body.join('\n')}</body></html>`;
}
