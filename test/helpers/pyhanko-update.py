#!/usr/bin/python3
"""Honest incremental updates written by pyHanko's own writer (test helper, run through
test/helpers/pyhanko.ts, which finds pyHanko).

usage: pyhanko-update.py xmp IN.pdf OUT.pdf          rewrite the catalog's XMP metadata stream in place (add one if absent)
       pyhanko-update.py dss IN.pdf OUT.pdf CERT.pem...   add the certificates to the DSS (pyHanko's indirect /Certs array, grown in place)
"""
import os, sys
import logging
logging.disable(logging.WARNING)
from io import BytesIO
from asn1crypto import pem, x509
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign.validation.dss import DocumentSecurityStore


def xmp_packet(title):
    return ('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">%s</rdf:li>'
            '</rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>' % title).encode("utf-8")


def main():
    mode, src, dst, *rest = sys.argv[1:]
    data = open(src, "rb").read()
    if mode == "xmp":
        writer = IncrementalPdfFileWriter(BytesIO(data), strict=False)
        root = writer.root
        if "/Metadata" in root:
            ref = root.raw_get("/Metadata")
            stream = ref.get_object()
            stream._data = xmp_packet("Updated between signatures")
            stream._encoded_data = None
            stream.pop("/Filter", None)
            writer.mark_update(ref)
        else:
            stream = generic.StreamObject({generic.NameObject("/Type"): generic.NameObject("/Metadata"),
                                           generic.NameObject("/Subtype"): generic.NameObject("/XML")},
                                          stream_data=xmp_packet("First metadata"))
            root[generic.NameObject("/Metadata")] = writer.add_object(stream)
            writer.update_root()
        out = BytesIO()
        writer.write(out)
        open(dst, "wb").write(out.getvalue())
    elif mode == "dss":
        def load(p):
            raw = open(p, "rb").read()
            if pem.detect(raw):
                _, _, raw = pem.unarmor(raw)
            return x509.Certificate.load(raw)
        stream = BytesIO(data)
        DocumentSecurityStore.add_dss(stream, None, certs=[load(p) for p in rest], force_write=True)
        open(dst, "wb").write(stream.getvalue())
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
