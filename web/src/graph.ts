// The graph drawer, a bundle of its own loaded only by the writer's preview: Graphviz compiled to
// WebAssembly (@viz-js/viz, W10) turns the server's DOT into SVG in the page, with no network.
import { instance } from '@viz-js/viz';

/** The node a view's state id stands at (`awaiting-choice:12#0` is node 12), if any. */
export function currentNode(stateId: string): number | null {
  const match = /:(\d+)/.exec(stateId);
  return match ? Number(match[1]) : null;
}

/** The DOT with the node the drawing names `id` (the server's `nodes[i].id`) drawn as the current one. */
export function highlight(dot: string, id: string | null): string {
  if (id === null || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(id)) return dot;
  const end = dot.lastIndexOf('}');
  if (end < 0) return dot;
  const mark = `  ${id} [style="filled,bold", fillcolor="#ffd54f", penwidth=3];\n`;
  return dot.slice(0, end) + mark + dot.slice(end);
}

/** Draws DOT as an SVG element, the node named `current` marked. */
export async function renderDot(dot: string, current: string | null): Promise<SVGSVGElement> {
  const viz = await instance();
  return viz.renderSVGElement(highlight(dot, current));
}
