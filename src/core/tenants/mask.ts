/** How a secret is shown back to an admin: enough to recognise it, never enough to use it. */

/** `sk-…9f2c`: the first 3 characters, an ellipsis, the last 4 (a short value shows only the ellipsis). */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return '…';
  return `${secret.slice(0, 3)}…${secret.slice(-4)}`;
}
