#!/usr/bin/env python3
"""pyhanko-ltv [--password PW] PROFILE FILE.pdf ROOT.pem...: pyHanko's PAdES long-term validation of every regular
signature, offline (no fetching, revocation data required): only what the file embeds (DSS, tokens)
may be used. PROFILE is LT or LTA; PW opens an encrypted file ("" for an owner-password-only one). Prints one JSON line per signature; exit 0 when all are valid and trusted.
Run through test/helpers/pyhanko.ts.

pyHanko 0.20.1 to 0.34 have validate_pdf_ltv_signature (pyhanko.sign.validation), used when
present; pyHanko 0.35 removed it in favour of the AdES engine, so later versions go through
ades_lta_validation with an offline spec that requires revocation data (PROFILE does not matter
there: the engine takes what the file holds, DSS and document timestamps alike)."""
import json, sys
import asyncio, logging
logging.disable(logging.WARNING)
from asn1crypto import pem, x509
from pyhanko.pdf_utils.reader import PdfFileReader

args = sys.argv[1:]
password = None
if args[:1] == ["--password"]:
    password, args = args[1].encode("utf8"), args[2:]
profile, path, *root_paths = args


def load(p):
    data = open(p, "rb").read()
    if pem.detect(data):
        _, _, data = pem.unarmor(data)
    return x509.Certificate.load(data)


roots = [load(p) for p in root_paths]
reader = PdfFileReader(open(path, "rb"))
if password is not None:
    reader.decrypt(password)

try:
    from pyhanko.sign.validation import RevocationInfoValidationType, validate_pdf_ltv_signature
    from pyhanko.sign.validation.dss import DocumentSecurityStore

    def judge(sig):
        offline = {"trust_roots": roots, "allow_fetching": False}
        kind = RevocationInfoValidationType.PADES_LTA if profile == "LTA" else RevocationInfoValidationType.PADES_LT
        # The first timestamp is checked against the DSS too (pyHanko would fetch otherwise).
        bootstrap = DocumentSecurityStore.read_dss(reader).as_validation_context(dict(offline, revocation_mode="hard-fail"), include_revinfo=True)
        st = validate_pdf_ltv_signature(sig, kind, validation_context_kwargs=offline, bootstrap_validation_context=bootstrap, force_revinfo=True)
        return st, st.bottom_line
except ImportError:
    from pyhanko.sign.ades.report import AdESPassed
    from pyhanko.sign.validation.ades import ades_lta_validation
    from pyhanko.sign.validation.policy_decl import (
        PdfSignatureValidationSpec, RevinfoOnlineFetchingRule, RevocationInfoGatheringSpec, SignatureValidationSpec)
    from pyhanko_certvalidator.context import CertValidationPolicySpec
    from pyhanko_certvalidator.policy_decl import REQUIRE_REVINFO, CertRevTrustPolicy
    from pyhanko_certvalidator.registry import SimpleTrustManager

    spec = PdfSignatureValidationSpec(SignatureValidationSpec(
        cert_validation_policy=CertValidationPolicySpec(trust_manager=SimpleTrustManager.build(trust_roots=roots),
                                                        revinfo_policy=CertRevTrustPolicy(REQUIRE_REVINFO)),
        revinfo_gathering_policy=RevocationInfoGatheringSpec(online_fetching_rule=RevinfoOnlineFetchingRule.LOCAL_ONLY)))

    def judge(sig):
        result = asyncio.run(ades_lta_validation(sig, spec))
        st = result.api_status
        return st, result.ades_subindic == AdESPassed.OK and st is not None and st.bottom_line


ok = len(reader.embedded_regular_signatures) > 0
for sig in reader.embedded_regular_signatures:
    try:
        st, holds = judge(sig)
        row = {"field": sig.field_name, "intact": st.intact, "valid": st.valid, "trusted": st.trusted, "bottomLine": holds,
               "modificationLevel": st.modification_level.name if st.modification_level else None}
        ok = ok and holds
    except Exception as e:
        row = {"field": sig.field_name, "error": "%s: %s" % (type(e).__name__, e)}
        ok = False
    print(json.dumps(row))
sys.exit(0 if ok else 1)
