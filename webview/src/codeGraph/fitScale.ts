/**
 * The scale that fits a laid-out graph in the room the pane has: the whole graph visible, width and
 * height both, never drawn larger than the layout's own size (text past that helps nobody), and not
 * below a quarter (the smallest the zoom-out button goes), where the pane scrolls instead.
 */
export const smallestScale = 0.25;

export function fitScale(graph: { readonly width: number; readonly height: number }, room: { readonly width: number; readonly height: number }): number {
  const across = room.width / Math.max(1, graph.width);
  const down = room.height / Math.max(1, graph.height);
  const fits = Math.min(across, down);
  return Number.isFinite(fits) ? Math.min(1, Math.max(smallestScale, fits)) : 1;
}
