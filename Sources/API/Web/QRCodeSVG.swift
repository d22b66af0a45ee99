/// The QR code of `text` as an inline SVG, or nil when the hub cannot draw
/// one (the 2FA page then shows the secret and the `otpauth://` URI as text).
/// TODO: switch to `QRCode.svg(text)` when the `QR` module is merged; until
/// then there is no encoder, and the page must not pretend to have one.
func qrCodeSVG(_ text: String) -> String? {
    nil
}
