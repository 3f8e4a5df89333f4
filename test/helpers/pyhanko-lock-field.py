#!/usr/bin/python3
"""Add an empty signature field with a field lock (/Lock, FieldMDP) to a PDF, written by pyHanko's
own writer as an incremental update (test helper, run through test/helpers/pyhanko.ts).

usage: pyhanko-lock-field.py IN.pdf OUT.pdf NAME ACTION P [FIELD ...]
  ACTION is All, Include or Exclude; P is the lock's DocMDP permission (1, 2, 3) or - for none;
  the field goes on page 1 at [10 100 140 130].
"""
import sys
import logging
logging.disable(logging.WARNING)
from io import BytesIO
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign.fields import FieldMDPAction, FieldMDPSpec, MDPPerm, SigFieldSpec, append_signature_field


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    src, dst, name, action, p, *fields = sys.argv[1:]
    writer = IncrementalPdfFileWriter(BytesIO(open(src, "rb").read()), strict=False)
    lock = FieldMDPSpec(action=FieldMDPAction("/" + action), fields=fields if action != "All" else None)
    spec = SigFieldSpec(
        sig_field_name=name,
        on_page=0,
        box=(10, 100, 140, 130),
        field_mdp_spec=lock,
        doc_mdp_update_value=None if p == "-" else MDPPerm(int(p)),
    )
    append_signature_field(writer, spec)
    out = BytesIO()
    writer.write(out)
    open(dst, "wb").write(out.getvalue())


if __name__ == "__main__":
    main()
