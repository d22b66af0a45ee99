@testable import API
import Testing

/// The server-drawn SVG charts: tables of samples in, markup checked by
/// counting the shapes drawn (no pixels, no timing).
@Suite struct ChartTests {
    static func count(_ needle: String, in text: String) -> Int {
        var n = 0
        var rest = Substring(text)
        while let r = rest.range(of: needle) {
            n += 1
            rest = rest[r.upperBound...]
        }
        return n
    }

    /// No NaN, infinity or exponent notation in the markup.
    static func plainNumbers(_ svg: String) -> Bool {
        !svg.contains("nan") && !svg.contains("inf") && !(0...9).contains { svg.contains("e-\($0)") || svg.contains("e+\($0)") }
    }

    static func up(_ at: Int64, _ ms: Int64?) -> ChartSample { ChartSample(at: at, latencyMs: ms, down: false) }
    static func down(_ at: Int64) -> ChartSample { ChartSample(at: at, latencyMs: nil, down: true) }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var samples: [ChartSample]
        var polylines: Int
        var dots: Int
        var downBands: Int
        var summary: String
    }

    static let sparkCases: [Case] = [
        Case(description: "empty", samples: [], polylines: 0, dots: 0, downBands: 0, summary: "No checks yet."),
        Case(description: "one point", samples: [up(0, 80)], polylines: 0, dots: 1, downBands: 0,
             summary: "Last 1 check: latest 80 ms, highest 80 ms, none failed."),
        Case(description: "steady", samples: [up(0, 10), up(60, 20), up(120, 30)], polylines: 1, dots: 0, downBands: 0,
             summary: "Last 3 checks: latest 30 ms, highest 30 ms, none failed."),
        Case(description: "gap without latency", samples: [up(0, 10), up(60, 20), up(120, nil), up(180, 5), up(240, 7)],
             polylines: 2, dots: 0, downBands: 0, summary: "Last 5 checks: latest 7 ms, highest 20 ms, none failed."),
        Case(description: "one down in the middle", samples: [up(0, 10), up(60, 20), down(120), up(180, 5)],
             polylines: 1, dots: 1, downBands: 1, summary: "Last 4 checks: latest 5 ms, highest 20 ms, 1 failed."),
        Case(description: "all down", samples: [down(0), down(60), down(120)], polylines: 0, dots: 0, downBands: 3,
             summary: "Last 3 checks, 3 failed."),
    ]

    @Test(arguments: sparkCases) func sparkline(_ c: Case) {
        let svg = Charts.sparkline(c.samples)
        #expect(svg.hasPrefix("<svg class=\"spark\" role=\"img\" aria-label=\"\(c.summary)\""))
        #expect(svg.hasSuffix("</svg>"))
        #expect(svg.contains("<title>\(c.summary)</title>"))
        #expect(Self.count("<polyline", in: svg) == c.polylines)
        #expect(Self.count("<circle", in: svg) == c.dots)
        #expect(Self.count("<rect", in: svg) == c.downBands)
        #expect(!svg.contains("x=\"-"), "bars stay inside the box")
        #expect(Self.plainNumbers(svg), "plain numbers only")
        #expect(!svg.contains("style="), "the CSP allows no inline styles")
    }

    /// A one-hour window (buckets of 18 s) with a 150 s gap threshold.
    static let historyCases: [Case] = [
        Case(description: "empty", samples: [], polylines: 0, dots: 0, downBands: 0,
             summary: "Latency over the last 1 h: no checks in this period."),
        Case(description: "one point", samples: [up(600, 42)], polylines: 0, dots: 1, downBands: 0,
             summary: "Latency over the last 1 h: 1 check, average 42 ms, highest 42 ms, no failures."),
        Case(description: "steady", samples: [up(0, 10), up(60, 20), up(120, 30)], polylines: 1, dots: 0, downBands: 0,
             summary: "Latency over the last 1 h: 3 checks, average 20 ms, highest 30 ms, no failures."),
        Case(description: "a gap breaks the line",
             samples: [up(0, 10), up(60, 10), up(120, 10), up(2000, 10), up(2060, 10)], polylines: 2, dots: 0, downBands: 0,
             summary: "Latency over the last 1 h: 5 checks, average 10 ms, highest 10 ms, no failures."),
        Case(description: "down in the middle", samples: [up(0, 10), down(60), up(120, 30), up(180, 30)],
             polylines: 1, dots: 1, downBands: 1,
             summary: "Latency over the last 1 h: 4 checks, average 23 ms, highest 30 ms, down 1 time (1 min in total)."),
        Case(description: "all down, still down", samples: [down(600), down(660), down(720)], polylines: 0, dots: 0, downBands: 1,
             summary: "Latency over the last 1 h: 3 checks, down 1 time (50 min in total)."),
        Case(description: "outside the window is ignored", samples: [up(-600, 999), up(60, 10), up(120, 10), up(9999, 999)],
             polylines: 1, dots: 0, downBands: 0,
             summary: "Latency over the last 1 h: 2 checks, average 10 ms, highest 10 ms, no failures."),
    ]

    @Test(arguments: historyCases) func history(_ c: Case) {
        let svg = Charts.history(c.samples, from: 0, to: 3600, gapSeconds: 150)
        #expect(svg.hasPrefix("<svg class=\"chart\" role=\"img\" aria-label=\"\(c.summary)\""))
        #expect(svg.hasSuffix("</svg>"))
        #expect(Self.count("<polyline", in: svg) == c.polylines)
        #expect(Self.count("<circle", in: svg) == c.dots)
        #expect(Self.count("<rect", in: svg) == c.downBands)
        #expect(svg.contains(">0 ms</text>") && svg.contains(">1 h ago</text>") && svg.contains(">now</text>"))
        #expect(svg.contains("No checks in this period") == c.samples.isEmpty)
        // The scale's top label only when there is a latency to scale.
        let hasLatency = c.samples.contains { !$0.down && $0.latencyMs != nil && $0.at >= 0 && $0.at <= 3600 }
        #expect(Self.count(" ms</text>", in: svg) == (hasLatency ? 2 : 1))
        #expect(Self.plainNumbers(svg))
        #expect(!svg.contains("style="))
    }

    @Test func manySamplesStaySmall() {
        // A day of 10 s checks is averaged into columns, not 8,640 points.
        let samples = (0..<8640).map { Self.up(Int64($0) * 10, Int64(50 + $0 % 7)) }
        let svg = Charts.history(samples, from: 0, to: 86_400, gapSeconds: 25)
        #expect(Self.count("<polyline", in: svg) == 1)
        #expect(svg.utf8.count < 8_000)
        #expect(svg.contains(">24 h ago</text>"))
        #expect(svg.contains(">56 ms</text>"))
    }

    @Test func downPeriods() {
        let table: [([ChartSample], [Charts.DownPeriod])] = [
            ([], []),
            ([Self.up(0, 1)], []),
            ([Self.down(10)], [.init(from: 10, to: 300)]),
            ([Self.up(0, 1), Self.down(60), Self.down(120), Self.up(180, 1), Self.down(240)],
             [.init(from: 60, to: 180), .init(from: 240, to: 300)]),
            ([Self.down(0), Self.up(60, nil)], [.init(from: 0, to: 60)]),
        ]
        for (samples, expected) in table {
            #expect(Charts.downPeriods(samples, until: 300) == expected, "\(samples)")
        }
    }

    @Test func numbersAndDurations() {
        for (value, text) in [(0.0, "0"), (1.25, "1.3"), (12.04, "12"), (-0.5, "-0.5"), (0.00001, "0")] {
            #expect(Charts.fmt(value) == text, "\(value)")
        }
        for (seconds, text) in [(Int64(0), "0 s"), (59, "59 s"), (60, "1 min"), (3600, "1 h"), (5400, "1 h 30 min"),
                                (86_400, "24 h"), (7 * 86_400, "7 d")] {
            #expect(Charts.duration(seconds) == text, "\(seconds)")
        }
    }
}
