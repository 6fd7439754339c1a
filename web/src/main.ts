// The page's entry: reads the URL fragment and shows the home page, a player, or the preview.
import { fill, h } from './dom';
import { showHome } from './home';
import { Player } from './player';
import { Preview } from './preview';
import { go, keep, kept, route } from './store';

let current: { stop(): void } | null = null;

async function show(): Promise<void> {
  const root = document.getElementById('app');
  if (!root) return;
  current?.stop();
  current = null;
  const where = route();
  if (where.page === 'play') {
    if (where.token) {
      // A shared link carried the token: keep it, and take it out of the address bar.
      keep({ sessionId: where.sessionId, token: where.token, documentId: '', name: 'Shared session' });
      history.replaceState(null, '', `#/play/${encodeURIComponent(where.sessionId)}`);
    }
    const session = kept(where.sessionId);
    if (!session) {
      fill(root, h('h1', {}, 'Stagehand'), h('p', { role: 'alert' }, 'This browser holds no token for that session.'), h('a', { href: '#/' }, 'Back to the documents'));
      return;
    }
    root.className = 'player';
    const player = new Player(root, session);
    current = player;
    await player.start();
    document.title = `${session.name} · Stagehand`;
  } else if (where.page === 'preview') {
    root.className = 'preview-page';
    const preview = new Preview(root, where.path);
    current = preview;
    document.title = "Writer's preview · Stagehand";
    await preview.start();
  } else {
    root.className = 'home';
    document.title = 'Stagehand';
    await showHome(root);
  }
}

window.addEventListener('hashchange', () => void show());
if (!location.hash) go('#/');
void show();
