import Core
import Testing
import TestSupport

/// The dashboard at more than a page of monitors (docs/web.md): worst
/// first, 100 a page with a cursor, search and status/tag filters, every
/// name escaped, on both engines through the running binary.
@Suite struct WebDashboardTests {
    static func rows(_ html: String) -> Int { WebMonitorPagesTests.count("<td data-label=\"Name\">", in: html) }

    /// The `href` of the link whose text is `label`, HTML-unescaped.
    static func link(_ label: String, in html: String) -> String? {
        let parts = html.split(separator: "\">\(label)</a>", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let href = parts[0].split(separator: "href=\"", omittingEmptySubsequences: false).last,
              parts[0].contains("href=\"") else { return nil }
        return String(href).replacing("&amp;", with: "&")
    }

    @Test(arguments: TestEngine.all) func pagesSearchAndFiltersWorstFirst(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let token = try hub.token()
        func create(_ body: JSON) throws -> Int64 {
            try #require(try expectJSON(try hub.call("POST", "/api/monitors", token: token, json: body), 201)["id"]?.intValue)
        }
        // 130 heartbeat monitors stay pending (no ping, a day's grace); names sort without case.
        for i in 0..<130 {
            let name = i % 2 == 0 ? "Job \(String(1000 + i))" : "job \(String(1000 + i))"
            _ = try create(["name": .string(name), "type": "heartbeat", "heartbeat": ["period": 86400, "grace": 86400],
                            "tags": i < 5 ? ["batch"] : []])
        }
        // Paused sorts last; a name with markup is escaped wherever it shows.
        _ = try create(["name": "<b>Aaa & co</b>", "type": "heartbeat", "heartbeat": ["period": 86400, "grace": 86400],
                        "paused": true])

        let browser = Browser(hub)
        #expect(try browser.login().status == 303)
        let first = try browser.get("/")
        #expect(first.status == 200)
        #expect(Self.rows(first.text) == 100)
        #expect(first.text.contains(">Job 1000</a>") && first.text.contains(">job 1099</a>") && !first.text.contains(">Job 1100</a>"))
        #expect(!first.text.contains("<b>Aaa") && !first.text.contains("&lt;b&gt;Aaa"), "paused is on the last page")
        #expect(first.text.contains("pending <span class=\"muted\">130</span>") && first.text.contains("paused <span class=\"muted\">1</span>"))
        let next = try #require(Self.link("Next page", in: first.text))
        #expect(next.hasPrefix("/?after="))

        let second = try browser.get(next)
        #expect(second.status == 200 && Self.rows(second.text) == 31)
        #expect(second.text.contains(">Job 1100</a>") && second.text.contains(">job 1129</a>"))
        #expect(second.text.contains("&lt;b&gt;Aaa &amp; co&lt;/b&gt;") && !second.text.contains("<b>Aaa"))
        #expect(Self.link("Next page", in: second.text) == nil && Self.link("First page", in: second.text) == "/")

        // Search: any case, name or target; the term is echoed escaped.
        let found = try browser.get("/?q=JOB+101")
        #expect(Self.rows(found.text) == 10 && found.text.contains(">job 1019</a>") && !found.text.contains(">Job 1020</a>"))
        let hostile = try browser.get("/?q=%3Cscript%3E")
        #expect(hostile.status == 200 && Self.rows(hostile.text) == 0 && hostile.text.contains("No monitors match."))
        #expect(!hostile.text.contains("<script>") && hostile.text.contains("&lt;script&gt;"))
        #expect(Self.rows(try browser.get("/?q=aaa+%26").text) == 1)

        // Status and tag filters, alone and together; unknown values match nothing.
        #expect(Self.rows(try browser.get("/?status=paused").text) == 1)
        #expect(Self.rows(try browser.get("/?status=down").text) == 0)
        #expect(Self.rows(try browser.get("/?tag=batch").text) == 5)
        #expect(Self.rows(try browser.get("/?tag=batch&q=1003").text) == 1)
        let unknown = try browser.get("/?status=sideways")
        #expect(unknown.status == 200 && Self.rows(unknown.text) == 0 && unknown.text.contains("No monitors match."))
        // A cursor that is not ours starts again at page one, never an error page.
        for bad in ["garbage", "%00", "OToxOng" /* "9:1:x": no such rank */] {
            let page = try browser.get("/?after=\(bad)")
            #expect(page.status == 200 && Self.rows(page.text) == 100, "\(bad)")
        }
    }
}
