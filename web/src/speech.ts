// Speech as a person reads it: styles, links and images by their alt text (W4). Transcript lines
// carry plain text today; when a line carries the playbook's fragments (`speech`), they are drawn.
import { h } from './dom';
import type { Fragment, Reported } from './types';

const STYLE_TAGS: Record<string, 'em' | 'strong' | 's'> = { italic: 'em', bold: 'strong', strikethrough: 's' };

/** A link target the page will follow: http(s) and mailto only; anything else is shown, not linked. */
export function safeHref(target: string): string | null {
  try {
    const url = new URL(target, location.href);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** Appends the fragments to `parent`. */
export function renderFragments(parent: HTMLElement, fragments: Fragment[]): void {
  for (const fragment of fragments) {
    switch (fragment.kind) {
      case 'text':
        parent.append(fragment.text ?? '');
        break;
      case 'styled': {
        const element = h(STYLE_TAGS[fragment.style ?? ''] ?? 'span');
        renderFragments(element, fragment.children ?? []);
        parent.append(element);
        break;
      }
      case 'link': {
        const href = safeHref(fragment.target ?? '');
        const element = href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }) : h('span', { class: 'link' });
        renderFragments(element, fragment.label ?? []);
        parent.append(element);
        break;
      }
      case 'image': {
        // Images are shown by their alt text: the page loads nothing the script points at.
        const element = h('span', { class: 'image', role: 'img', 'aria-label': plain(fragment.alt ?? []) });
        element.append('[', plain(fragment.alt ?? []) || 'image', ']');
        parent.append(element);
        break;
      }
      case 'break':
        parent.append(h('br'));
        break;
      case 'query':
        parent.append(h('span', { class: 'query' }, `{${fragment.key ?? ''}}`));
        break;
      case 'default-command':
      case 'custom-command':
        parent.append(h('span', { class: 'command-inline' }, commandText(fragment)));
        break;
      default:
        break; // tags and kinds this page does not know say nothing
    }
  }
}

/** A fragment list's plain words. */
export function plain(fragments: Fragment[]): string {
  return fragments
    .map((f) => {
      if (f.kind === 'text') return f.text ?? '';
      if (f.kind === 'styled') return plain(f.children ?? []);
      if (f.kind === 'link') return plain(f.label ?? []);
      if (f.kind === 'image') return plain(f.alt ?? []);
      if (f.kind === 'break') return '\n';
      return '';
    })
    .join('');
}

function commandText(fragment: Fragment): string {
  if (fragment.kind === 'default-command') return `("${fragment.action ?? ''}")`;
  return `${fragment.name ?? ''}(${(fragment.args ?? []).map((a) => JSON.stringify(a)).join(', ')})`;
}

/** The words of a reported event: its fragments when it carries them, its plain text otherwise. */
export function renderSpeech(event: Reported): HTMLElement {
  const element = h('span', { class: 'speech' });
  if (Array.isArray(event.speech)) renderFragments(element, event.speech);
  else element.append(event.text ?? '');
  return element;
}
