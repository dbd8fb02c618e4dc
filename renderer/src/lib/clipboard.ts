/**
 * Copy text for the user: the Clipboard API where the page may use it, else the selection
 * fallback (Electron's permission policy denies clipboard access by default, and a page served
 * over plain http from the host is not a secure context). False when neither worked: the caller
 * tells the user to select the text and copy it by hand.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no clipboard API');
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}
