/** The CSV dialect perfgate reads, shared by imports (src/results/import) and change-point series (src/analysis/changes). Pure. */

/** Comments with #, a BOM, ragged rows allowed. */
export const CSV_OPTIONS = {
  bom: true,
  trim: true,
  skip_empty_lines: true,
  comment: "#",
  comment_no_infix: true,
  relax_column_count: true,
} as const;
