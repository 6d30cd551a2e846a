/** The parts of d3-flame-graph 5 and d3-selection 3 the run page's flame graph uses (they ship no types). */
declare module "d3-flame-graph" {
  export interface FlameNode<T> {
    data: T;
    value: number;
    highlight?: boolean;
  }
  export interface FlameGraph<T> {
    (selection: unknown): void;
    width(w: number): FlameGraph<T>;
    cellHeight(h: number): FlameGraph<T>;
    minFrameSize(px: number): FlameGraph<T>;
    transitionDuration(ms: number): FlameGraph<T>;
    title(t: string): FlameGraph<T>;
    setColorMapper(f: (d: FlameNode<T>, original: string) => string): FlameGraph<T>;
    setLabelHandler(f: (d: FlameNode<T>) => string): FlameGraph<T>;
    setSearchMatch(f: (d: FlameNode<T>, term: string) => boolean): FlameGraph<T>;
    setSearchHandler(f: (results: FlameNode<T>[], sum: number, total: number) => void): FlameGraph<T>;
    setDetailsElement(e: HTMLElement): FlameGraph<T>;
    search(term: string): void;
    clear(): void;
    resetZoom(): void;
  }
  export default function flamegraph<T>(): FlameGraph<T>;
}

declare module "d3-selection" {
  export interface Selection {
    datum(d: unknown): Selection;
    call(f: (s: Selection) => void): Selection;
  }
  export function select(e: Element): Selection;
}
