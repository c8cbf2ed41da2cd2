// Comma-separated values as spreadsheets read them (RFC 4180): a header row, CRLF line ends, fields with a comma,
// a quote or a line break quoted; UTF-8 with a byte-order mark, so Excel reads Chinese.

const BOM = "\uFEFF";

function field(value) {
  if (value === undefined || value === null) return "";
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The file's text: `header` (names) then `rows` (arrays of the same length; numbers written as they are). */
export function csvText(header, rows) {
  return BOM + [header, ...rows].map((row) => row.map(field).join(",")).join("\r\n") + "\r\n";
}
