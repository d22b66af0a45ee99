import Crypto
import HTTP

/// `/static/{name}`: the embedded stylesheet, scripts and images, with an
/// ETag (SHA-256 of the bytes) so browsers revalidate cheaply after an upgrade.
struct StaticRoutes {
    static let etags: [String: String] = TemplateLibrary.assets.mapValues {
        "\"" + Hex.encode(SHA256.hash($0.bytes).prefix(12)) + "\""
    }

    func register(_ r: inout RouteTable) {
        r.add("GET", "/static/{name}", .inline) { req in Self.serve(req) }
    }

    static func serve(_ req: HTTPRequest) -> HTTPResponse {
        let name = req.parameters["name"] ?? ""
        guard let asset = TemplateLibrary.assets[name], let etag = etags[name] else {
            return .json(404, #"{"error":{"code":"not_found","message":"No such file."}}"#)
        }
        var r: HTTPResponse
        if req.headers["If-None-Match"] == etag {
            r = HTTPResponse(status: 304)
        } else {
            r = HTTPResponse(status: 200, body: asset.bytes)
            r.headers.set("Content-Type", asset.type)
        }
        r.headers.set("ETag", etag)
        r.headers.set("Cache-Control", "public, max-age=3600")
        r.headers.set("X-Content-Type-Options", "nosniff")
        return r
    }
}
