/**
 * Which data file a page shows (shared by the inline preloader and the page bundles): the
 * overview and matrix pages one file each, a cell or run page the file its `?id=` names.
 */
export function dataKey(page: string, id: string | null): string | null {
  if (page === "overview") return "overview";
  if (page === "matrix") return "matrix";
  if (page === "scaling") return "scaling";
  if (page === "cell" && id) return `cells/${id}`;
  if (page === "run" && id) return `runs/${id}`;
  return null;
}

/** What the preloader hands over: data files requested before the bundle ran, and those arrived. */
export interface EarlyData {
  requested: string[];
  arrived: Record<string, unknown>;
}

declare global {
  interface Window {
    perfgateData: (key: string, data: unknown) => void;
    perfgateEarly?: EarlyData;
  }
}

/** Adds the script that loads data/<key>.js (it calls window.perfgateData when it has run). */
export function requestData(key: string, onError?: () => void): void {
  const s = document.createElement("script");
  s.src = `data/${key}.js`;
  s.async = true;
  if (onError) s.onerror = onError;
  document.head.append(s);
}
