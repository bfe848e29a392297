"""PDF reader package: kg.ingest.pdf.read_pdf is the entry point.

reader: orchestration of the two passes; layout: pass 1 per page; tables,
figures, headings, furniture, order: the decisions of pass 2.
"""

from kg.ingest.pdf.reader import read_pdf

__all__ = ["read_pdf"]
