import type { Page } from 'playwright-core';

export interface CutText {
  text: string;
  reason: string;
}

/**
 * Every visible button, input and the camera's picture that is not wholly on the screen, or is
 * squashed below a usable size (a button narrower than its own text, an input under 120 px).
 */
export function findOffScreen(page: Page): Promise<CutText[]> {
  return page.evaluate(() => {
    const win = globalThis as any;
    const problems: { text: string; reason: string }[] = [];
    const slack = 1;
    for (const element of Array.from(win.document.querySelectorAll('button, input, .camera-frame')) as any[]) {
      const style = win.getComputedStyle(element);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue;
      const name = (element.textContent || element.name || element.placeholder || element.className || element.tagName).trim().slice(0, 40);
      let scroller = false;
      for (let parent = element.parentElement; parent; parent = parent.parentElement) {
        if (/(auto|scroll)/.test(win.getComputedStyle(parent).overflowY)) scroller = true;
      }
      if (!scroller && (rect.left < -slack || rect.top < -slack || rect.right > win.innerWidth + slack || rect.bottom > win.innerHeight + slack)) {
        problems.push({ text: name, reason: `off the screen (${Math.round(rect.left)},${Math.round(rect.top)} ${Math.round(rect.width)}x${Math.round(rect.height)})` });
      }
      if (element.tagName === 'INPUT' && rect.width < 120) problems.push({ text: name, reason: `squashed to ${Math.round(rect.width)} px` });
      if (element.tagName === 'BUTTON' && element.scrollWidth > element.clientWidth + slack) problems.push({ text: name, reason: 'button narrower than its text' });
    }
    return problems;
  });
}

/**
 * Every visible piece of text that is wider than its box, or sticks out of the viewport or out
 * of an ancestor that clips it (scrolling lists excepted: their rows can be scrolled to), and
 * every input whose placeholder does not fit. Runs in the page; this project's Node typecheck
 * has no DOM types, hence the untyped handles.
 */
export function findCutText(page: Page): Promise<CutText[]> {
  return page.evaluate(() => {
    const win = globalThis as any;
    const doc = win.document;
    const problems: { text: string; reason: string }[] = [];
    const slack = 1;
    const inputs = (element: any) => element.tagName === 'INPUT';
    for (const element of Array.from(doc.body.querySelectorAll('*')) as any[]) {
      const ownText = (Array.from(element.childNodes) as any[])
        .filter((node) => node.nodeType === 3)
        .map((node) => node.textContent ?? '')
        .join('')
        .trim();
      const placeholder: string = inputs(element) ? element.placeholder : '';
      const value: string = inputs(element) && element.type !== 'password' ? element.value : '';
      const text: string = ownText || placeholder || value;
      if (!text) continue;
      const style = win.getComputedStyle(element);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;
      // A password field's dots scroll like any input's: the key is not for reading.
      if (element.type !== 'password' && element.scrollWidth > element.clientWidth + slack && !/(auto|scroll)/.test(style.overflowX)) {
        problems.push({ text, reason: `wider than its box (${element.scrollWidth} > ${element.clientWidth})` });
        continue;
      }
      if (placeholder && !value) {
        const probe = doc.createElement('span');
        probe.style.font = style.font;
        probe.style.position = 'absolute';
        probe.style.whiteSpace = 'pre';
        probe.textContent = placeholder;
        doc.body.append(probe);
        const needed = probe.getBoundingClientRect().width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
        probe.remove();
        if (needed > rect.width + slack) problems.push({ text, reason: 'placeholder cut' });
        continue;
      }
      let scrolled = false;
      for (let parent = element.parentElement; parent; parent = parent.parentElement) {
        const parentStyle = win.getComputedStyle(parent);
        if (/(auto|scroll)/.test(parentStyle.overflowY + parentStyle.overflowX)) {
          scrolled = true;
          break;
        }
        if (parentStyle.overflow === 'visible') continue;
        const box = parent.getBoundingClientRect();
        if (rect.left < box.left - slack || rect.right > box.right + slack || rect.top < box.top - slack || rect.bottom > box.bottom + slack) {
          problems.push({ text, reason: `cut by ${parent.className || parent.tagName}` });
          break;
        }
      }
      if (scrolled) continue;
      if (rect.left < -slack || rect.top < -slack || rect.right > win.innerWidth + slack || rect.bottom > win.innerHeight + slack) {
        problems.push({ text, reason: 'outside the screen' });
      }
    }
    return problems;
  });
}
