/**
 * A modal dialog: it takes the focus when it opens, keeps Tab and Shift+Tab within itself (the page behind is
 * inert to the keyboard as it is to the mouse), closes on Esc, and gives the focus back to where it was.
 */

import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

export function Dialog({ label, onClose, children, testId }: { label: string; onClose: () => void; children: ComponentChildren; testId?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    const focusable = () => [...(box.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])];
    focusable()[0]?.focus();
    // On the document, not the dialog: a click on the backdrop moves the focus out of the dialog, and Esc or Tab
    // must still answer.
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        close.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const all = focusable();
      const first = all[0];
      const last = all[all.length - 1];
      if (first === undefined || last === undefined) return;
      const inside = box.current?.contains(document.activeElement) === true;
      if (!inside || (event.shiftKey && document.activeElement === first)) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      opener?.focus();
    };
  }, []);
  return (
    <div class="modal">
      <div class="modal-box" role="dialog" aria-modal="true" aria-label={label} data-testid={testId} ref={box}>
        {children}
      </div>
    </div>
  );
}
