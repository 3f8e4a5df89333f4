#!/usr/bin/python3
"""pyhanko-ltv PROFILE FILE.pdf ROOT.pem...: pyHanko's PAdES long-term validation of every regular
signature, offline (no fetching, revocation data required): only what the file embeds (DSS, tokens)
may be used. PROFILE is LT or LTA. Prints one JSON line per signature; exit 0 when all are valid and trusted."""
import json, os, sys
sys.path.insert(0, os.environ.get("PYHANKO_LIB", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/tools/pyhanko/lib")))
import logging
logging.disable(logging.WARNING)
from asn1crypto import pem, x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_ltv_signature, RevocationInfoValidationType
from pyhanko.sign.validation.dss import DocumentSecurityStore

profile, path, *root_paths = sys.argv[1:]
def load(p):
    data = open(p, "rb").read()
    if pem.detect(data):
        _, _, data = pem.unarmor(data)
    return x509.Certificate.load(data)
roots = [load(p) for p in root_paths]
kind = RevocationInfoValidationType.PADES_LTA if profile == "LTA" else RevocationInfoValidationType.PADES_LT
reader = PdfFileReader(open(path, "rb"))
ok = len(reader.embedded_regular_signatures) > 0
for sig in reader.embedded_regular_signatures:
    try:
        offline = {"trust_roots": roots, "allow_fetching": False}
        # The first timestamp is checked against the DSS too (pyHanko would fetch otherwise).
        bootstrap = DocumentSecurityStore.read_dss(reader).as_validation_context(dict(offline, revocation_mode="hard-fail"), include_revinfo=True)
        st = validate_pdf_ltv_signature(sig, kind, validation_context_kwargs=offline, bootstrap_validation_context=bootstrap, force_revinfo=True)
        row = {"field": sig.field_name, "intact": st.intact, "valid": st.valid, "trusted": st.trusted, "bottomLine": st.bottom_line,
               "modificationLevel": st.modification_level.name if st.modification_level else None}
        ok = ok and st.bottom_line
    except Exception as e:
        row = {"field": sig.field_name, "error": "%s: %s" % (type(e).__name__, e)}
        ok = False
    print(json.dumps(row))
sys.exit(0 if ok else 1)
