#!/usr/bin/env python3
"""Sign a PDF with pyHanko (test helper, run through test/helpers/pyhanko.ts): PAdES (ETSI.CAdES.detached) or adbe.pkcs7.detached,
optionally as a certification signature with DocMDP permission P.

usage: pyhanko-sign.py IN.pdf OUT.pdf KEY.pem CERT.pem [--certify P] [--pkcs7] [--field NAME] [--ignore-docmdp]

The same calls in pyHanko 0.20.1 and the current API (0.35 and later): SimpleSigner.load,
PdfSignatureMetadata(field_name, subfilter, certify, docmdp_permissions), sign_pdf(..., output=),
IncrementalPdfFileWriter(stream, strict=False).
"""
import sys


def main():
    args = sys.argv[1:]
    src, dst, key, cert = args[:4]
    certify = int(args[args.index("--certify") + 1]) if "--certify" in args else None
    field = args[args.index("--field") + 1] if "--field" in args else "OtherSignature"
    import logging
    logging.disable(logging.WARNING)
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers

    if "--ignore-docmdp" in args:
        # A careless signer: signs a document certified against all changes (pyHanko itself refuses).
        signers.PdfSigner._enforce_certification_constraints = lambda self, reader: None
    signer = signers.SimpleSigner.load(key, cert)
    meta = signers.PdfSignatureMetadata(
        field_name=field,
        subfilter=fields.SigSeedSubFilter.ADOBE_PKCS7_DETACHED if "--pkcs7" in args else fields.SigSeedSubFilter.PADES,
        certify=certify is not None,
        docmdp_permissions=fields.MDPPerm(certify) if certify else fields.MDPPerm.FILL_FORMS,
    )
    with open(src, "rb") as inf:
        writer = IncrementalPdfFileWriter(inf, strict=False)
        with open(dst, "wb") as out:
            signers.sign_pdf(writer, meta, signer=signer, output=out)


if __name__ == "__main__":
    main()
