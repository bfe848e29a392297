"""The shared PDFs, parsed once per test session (table detection makes parsing slow).

Not a conftest.py: tests/kg/pipeline imports the root conftest by that bare name.
Test modules import the parsed_pdf fixture from here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.ingest import read_document
from kg.models import ParsedDocument

# The shared corpus sits beside the main checkout (/work/shared); a worktree is one level deeper.
CORPUS = next((p / "shared" / "corpus" for p in Path(__file__).resolve().parents[4:6]
               if (p / "shared" / "corpus").exists()), Path(__file__).resolve().parents[4] / "shared" / "corpus")
PDF_DIR = CORPUS / "pdf"
FEDREG = PDF_DIR / "reg_federal_register_2020-17221.pdf"
NIST = PDF_DIR / "report_nist_sp800-223_hpc_security.pdf"
S2ORC = PDF_DIR / "ai2_s2orc_acl2020.pdf"
LONGEVAL = PDF_DIR / "ai2_longeval_eacl2023.pdf"
KI67 = PDF_DIR / "med_ki67_breast_cancer_curroncol2023.pdf"
FAA = PDF_DIR / "manual_faa_amt_handbook_sample.pdf"
ALL_PDFS = [FEDREG, NIST, S2ORC, LONGEVAL, KI67, FAA]

_CACHE: dict[Path, ParsedDocument] = {}


@pytest.fixture(scope="session")
def parsed_pdf(tmp_path_factory):
    assets = tmp_path_factory.mktemp("pdf-assets")

    def parse(path: Path) -> ParsedDocument:
        if not path.exists():
            pytest.skip(f"corpus file missing: {path}")
        if path not in _CACHE:
            _CACHE[path] = read_document(path, assets)
        return _CACHE[path]

    return parse
