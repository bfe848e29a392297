"""PDF reader package: kg.ingest.pdf.read_pdf is the entry point.

reader: the two passes (workers.parse_pages is pass 1 for some pages, a pure
function a worker can run; assemble_pdf is pass 2); workers: pass 1 across
processes; layout, table_cues, tables, printed_table: one page; furniture, headings,
figures, order, title: the document-wide decisions of pass 2.
"""

from kg.ingest.pdf.reader import assemble_pdf, page_count, read_pdf
from kg.ingest.pdf.workers import parse_pages

__all__ = ["read_pdf", "parse_pages", "assemble_pdf", "page_count"]
