#!/usr/bin/env python3
"""Validate every signature of a PDF with pyHanko (test helper, run through test/helpers/pyhanko.ts):
integrity, trust, and the diff analysis of what changed after each signature (ISO 32000
incremental updates, DocMDP).

usage: pyhanko-validate.py [--require-trust] FILE.pdf [TRUST_ROOT.pem ...]
prints one JSON object per signature (document timestamps, /DocTimeStamp, are validated as timestamps:
integrity and the diff analysis after them; their TSA is not required to chain to the given roots),
then a summary. Exit status 0 when every signature holds:
intact, cryptographically valid, and nothing but permitted changes after it (modification level at
most FORM_FILLING); with --require-trust also chained to one of the given roots. 1 when pyHanko gave
a verdict on every signature and one of them does not hold, 2 on a usage error, 3 when pyHanko gave
no verdict: an exception while reading the file or validating a signature is not a refusal, it is
printed as {"noVerdict": "ExceptionName: message", "stage": ...} (the file, or the signature's field).

Written against pyHanko 0.20.1 (pyhanko-certvalidator 0.24.1) and checked against the current API
(0.35 and later): every name used here exists with the same meaning in both.
"""
import json, sys


def main():
    args = sys.argv[1:]
    require_trust = "--require-trust" in args
    args = [a for a in args if a != "--require-trust"]
    if not args:
        print(__doc__, file=sys.stderr); sys.exit(2)
    import logging
    logging.disable(logging.WARNING)
    from asn1crypto import pem, x509
    from pyhanko.pdf_utils.reader import PdfFileReader

    def load(path):
        data = open(path, "rb").read()
        if pem.detect(data):
            _, _, data = pem.unarmor(data)
        return x509.Certificate.load(data)

    roots = [load(p) for p in args[1:]]
    try:
        reader = PdfFileReader(open(args[0], "rb"), strict=True)
        signatures = reader.embedded_signatures
    except Exception as e:
        no_verdict("reading the file", e)
        sys.exit(3)
    ok_all = len(signatures) > 0
    crashed = 0
    for sig in signatures:
        try:
            good = judge(sig, roots, require_trust)
        except Exception as e:
            no_verdict("signature %s" % sig.field_name, e)
            crashed += 1
            continue
        ok_all = ok_all and good
    print(json.dumps({"signatures": len(signatures), "allHold": ok_all and crashed == 0, "crashed": crashed}))
    sys.exit(3 if crashed else 0 if ok_all else 1)


def no_verdict(stage, e):
    """no_verdict reports an exception inside pyHanko: which stage, its name and message, where it was raised."""
    import re, traceback
    where = traceback.extract_tb(e.__traceback__)[-1]
    print(json.dumps({"noVerdict": "%s: %s" % (type(e).__name__, e), "stage": stage,
                      "raisedAt": "%s:%d" % (re.sub(r"^.*/(?=pyhanko|asn1crypto)", "", where.filename), where.lineno)}))


def certification_of(sig):
    """certification_of says whether the catalog's /Perms /DocMDP names this signature, and its DocMDP P (pyHanko's reading of /Reference)."""
    try:
        certifies = sig.reader.root["/Perms"].get_value_as_reference("/DocMDP") == sig.sig_object.container_ref
    except Exception:
        certifies = False
    level = sig.docmdp_level
    return certifies, level.value if level is not None else None


def judge(sig, roots, require_trust):
    """judge validates one embedded signature, prints its row, and says whether it holds."""
    import asyncio
    from pyhanko.sign.validation import validate_pdf_signature, validate_pdf_timestamp
    from pyhanko.sign.validation.ades import ades_basic_validation
    from pyhanko.sign.validation.policy_decl import SignatureValidationSpec, RevocationInfoGatheringSpec, RevinfoOnlineFetchingRule
    from pyhanko_certvalidator import ValidationContext
    from pyhanko_certvalidator.context import CertValidationPolicySpec
    from pyhanko_certvalidator.policy_decl import CertRevTrustPolicy, NO_REVOCATION
    from pyhanko_certvalidator.registry import SimpleTrustManager
    vc = ValidationContext(trust_roots=roots, allow_fetching=False, revocation_mode="soft-fail")
    if sig.sig_object_type == "/DocTimeStamp":
        st = validate_pdf_timestamp(sig, validation_context=vc)
        level = st.modification_level.name if st.modification_level else None
        row = {"field": sig.field_name, "subFilter": str(sig.sig_object.get("/SubFilter")), "kind": "documentTimestamp",
               "intact": st.intact, "valid": st.valid, "trusted": st.trusted, "coverage": st.coverage.name,
               "modificationLevel": level, "timestamp": st.timestamp.isoformat() if st.timestamp else None}
        print(json.dumps(row))
        return st.intact and st.valid and level in ("NONE", "LTA_UPDATES", "FORM_FILLING")
    st = validate_pdf_signature(sig, signer_validation_context=vc)
    level = st.modification_level.name if st.modification_level else None
    row = {"field": sig.field_name, "subFilter": str(sig.sig_object.get("/SubFilter")), "intact": st.intact,
           "valid": st.valid, "trusted": st.trusted, "coverage": st.coverage.name, "modificationLevel": level,
           "docmdpOk": st.docmdp_ok, "bottomLine": st.bottom_line}
    row["certifies"], row["docmdp"] = certification_of(sig)
    if st.diff_result is not None and not hasattr(st.diff_result, "changed_form_fields"):
        row["diff"] = str(st.diff_result)
    spec = SignatureValidationSpec(
        cert_validation_policy=CertValidationPolicySpec(trust_manager=SimpleTrustManager.build(trust_roots=roots),
                                                        revinfo_policy=CertRevTrustPolicy(NO_REVOCATION)),
        revinfo_gathering_policy=RevocationInfoGatheringSpec(online_fetching_rule=RevinfoOnlineFetchingRule.LOCAL_ONLY))
    try:
        res = asyncio.run(ades_basic_validation(sig.signed_data, spec, raw_digest=sig.compute_digest()))
        row["ades"] = str(res.ades_subindic)
    except Exception as e:  # report, don't hide
        row["ades"] = "error: %s: %s" % (type(e).__name__, e)
    print(json.dumps(row))
    return st.intact and st.valid and (st.trusted or not require_trust) and level in ("NONE", "LTA_UPDATES", "FORM_FILLING")


if __name__ == "__main__":
    main()
