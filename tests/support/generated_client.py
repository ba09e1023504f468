#!/usr/bin/env python3
"""Generate a Python client from labelpress's OpenAPI document and render
through it, with no edits to the generated code.

Usage: generated_client.py OPENAPI_JSON OUT_DIR BASE_URL TOKEN REQUEST_JSON

Runs openapi-python-client (with --fail-on-warning: a response body it
cannot type is a warning) into OUT_DIR/labelpress_client, imports the
package from there and calls:
- renderLabel with the request: OUT_DIR/label.pdf;
- renderLabel with format=png, dpi=300, mono=true: the PNG's size and mode;
- barcodeQr with the content "A/B 7": OUT_DIR/qr.svg;
- renderLabel with a font family the node lacks: the parsed error body.
Prints one JSON object with what each call answered. The test suite needs
this to run: a missing package or a failed generation exits non-zero.
"""
import io
import json
import subprocess
import sys

try:
    from PIL import Image
except ImportError as e:  # pragma: no cover - reported to the Rust test
    sys.stderr.write(f"generated_client.py: missing Python package: {e}\n")
    sys.exit(3)


def generate(document, out):
    package = f"{out}/labelpress_client"
    run = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate",
         "--path", document, "--output-path", package, "--meta", "none",
         "--fail-on-warning"],
        capture_output=True, text=True,
    )
    if run.returncode != 0:
        sys.stderr.write(f"openapi-python-client failed ({run.returncode}):\n{run.stdout}\n{run.stderr}\n")
        sys.exit(1)
    sys.path.insert(0, out)


def main():
    document, out, base, token, request_path = sys.argv[1:]
    generate(document, out)

    from labelpress_client import AuthenticatedClient, Client
    from labelpress_client.api.barcode import barcode_qr
    from labelpress_client.api.render import render_label
    from labelpress_client.models import BarcodeQrEcl, DocumentRequest, RenderLabelFormat
    from labelpress_client.types import File

    client = AuthenticatedClient(base_url=base, token=token, raise_on_unexpected_status=True)
    with open(request_path, encoding="utf-8") as f:
        request = json.load(f)
    result = {}

    # The PDF, through the typed call: sync() returns the parsed body.
    pdf = render_label.sync_detailed(client=client, body=DocumentRequest.from_dict(request))
    assert isinstance(pdf.parsed, File), type(pdf.parsed)
    with open(f"{out}/label.pdf", "wb") as f:
        f.write(pdf.parsed.payload.read())
    result["pdf"] = {"status": pdf.status_code}

    # The PNG, chosen by the call's format argument (no Accept header).
    png = render_label.sync_detailed(
        client=client,
        body=DocumentRequest.from_dict(request),
        format_=RenderLabelFormat.PNG,
        dpi=300,
        mono=True,
    )
    assert isinstance(png.parsed, File), type(png.parsed)
    data = png.parsed.payload.read()
    image = Image.open(io.BytesIO(data))
    result["png"] = {
        "status": png.status_code,
        "magic": data[:8].hex(),
        "width": image.width,
        "height": image.height,
        "mode": image.mode,
    }

    # A QR Code through its own operation, no token needed.
    svg = barcode_qr.sync_detailed(client=Client(base_url=base), content="A/B 7", ecl=BarcodeQrEcl.H)
    assert isinstance(svg.parsed, File), type(svg.parsed)
    with open(f"{out}/qr.svg", "wb") as f:
        f.write(svg.parsed.payload.read())
    result["svg"] = {"status": svg.status_code}

    # A refused document (a font family the node lacks: a rule no schema
    # can say): the 422's body parsed into its model.
    bad = json.loads(json.dumps(request))
    bad["pages"][0]["elements"][0]["style"] = {"font_family": "No Such Family"}
    refused = render_label.sync_detailed(client=client, body=DocumentRequest.from_dict(bad))
    assert type(refused.parsed).__name__ == "RenderLabelResponse422", type(refused.parsed)
    result["error"] = {
        "status": refused.status_code,
        "code": refused.parsed.code,
        "req_id": refused.parsed.req_id,
    }
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
