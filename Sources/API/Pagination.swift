import Core
import Crypto
import HTTP

/// `?limit=` (default 50, max 500) and an opaque `?cursor=` that encodes the
/// last id seen (keyset pagination: stable under inserts and deletes). Lists
/// in id order continue after it; newest-first lists continue before it.
struct Page {
    let limit: Int
    let afterID: Int64?

    init(_ request: HTTPRequest) throws(HTTPError) {
        if let text = request.query("limit") {
            guard let n = Int(text), (1...500).contains(n) else {
                throw HTTPError(400, "validation_failed", "limit must be an integer from 1 to 500.", field: "limit")
            }
            limit = n
        } else {
            limit = 50
        }
        if let cursor = request.query("cursor"), !cursor.isEmpty {
            guard let bytes = Base64URL.decode(cursor), let text = String(validating: bytes, as: UTF8.self),
                  text.hasPrefix("id:"), let id = Int64(text.dropFirst(3)), id >= 0 else {
                throw HTTPError(400, "validation_failed", "cursor is not one this server issued.", field: "cursor")
            }
            afterID = id
        } else {
            afterID = nil
        }
    }

    /// Fetch one more than the limit to know whether a next page exists.
    var fetchLimit: Int { limit + 1 }

    func response<T>(_ rows: [T], id: (T) -> Int64, render: (T) -> JSON) -> HTTPResponse {
        response(rows, id: id, renderAll: { $0.map(render) })
    }

    /// For renderers that fetch extra data for the whole page at once.
    func response<T>(_ rows: [T], id: (T) -> Int64, renderAll: ([T]) throws -> [JSON]) rethrows -> HTTPResponse {
        let page = Array(rows.prefix(limit))
        var next: JSON = .null
        if rows.count > limit, let last = page.last {
            next = .string(Base64URL.encode(Array("id:\(id(last))".utf8)))
        }
        return .json(["items": .array(try renderAll(page)), "next_cursor": next])
    }
}
