import QR

/// The QR code of `text` as an inline SVG (our own encoder, module `QR`), or
/// nil when the text does not fit a QR code: the 2FA page then shows the
/// secret and the `otpauth://` URI as text only.
func qrCodeSVG(_ text: String) -> String? {
    try? QRCode.svg(text)
}
