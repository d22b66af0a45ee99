@testable import API
import Testing

/// The page template language, as a table of sources, contexts and output.
@Suite struct TemplateTests {
    struct Case: Sendable, CustomStringConvertible {
        var source: String
        var context: TemplateValue
        var expected: String
        var description: String { source }
    }

    static let cases: [Case] = [
        Case(source: "Hi {{name}}!", context: ["name": "Ada"], expected: "Hi Ada!"),
        Case(source: "{{name}}", context: ["name": "<b>&\"'</b>"], expected: "&lt;b&gt;&amp;&quot;&#39;&lt;/b&gt;"),
        Case(source: "{{{svg}}}", context: ["svg": "<svg/>"], expected: "<svg/>"),
        Case(source: "{{missing}}.", context: [:], expected: "."),
        Case(source: "{{#items}}[{{n}}]{{/items}}", context: ["items": [["n": "1"], ["n": "2"]]], expected: "[1][2]"),
        Case(source: "{{#items}}x{{/items}}{{^items}}none{{/items}}", context: ["items": []], expected: "none"),
        Case(source: "{{#on}}yes{{/on}}{{^on}}no{{/on}}", context: ["on": false], expected: "no"),
        Case(source: "{{#user}}{{email}}{{/user}}", context: ["user": ["email": "a@b.c"]], expected: "a@b.c"),
        Case(source: "{{user.email}}", context: ["user": ["email": "a@b.c"]], expected: "a@b.c"),
        Case(source: "{{#rows}}{{title}}:{{name}};{{/rows}}", context: ["title": "T", "rows": [["name": "x"]]], expected: "T:x;"),
        Case(source: "{{#names}}{{.}},{{/names}}", context: ["names": ["a", "b"]], expected: "a,b,"),
        Case(source: "a{{! a comment }}b", context: [:], expected: "ab"),
    ]

    @Test(arguments: cases) func renders(_ c: Case) throws {
        #expect(try Template(name: "t", source: c.source).render(c.context) == c.expected)
    }

    @Test func partialsAndErrors() throws {
        let inner = try Template(name: "inner.html", source: "<{{x}}>")
        #expect(try Template(name: "outer", source: "{{> inner.html}}!").render(["x": "1"], partials: ["inner.html": inner]) == "<1>!")
        for bad in ["{{#a}}open", "{{/a}}", "{{#a}}{{/b}}", "{{name", "{{}}", "{{#}}{{/}}"] {
            #expect(throws: TemplateError.self, "\(bad)") { try Template(name: "bad", source: bad) }
        }
    }

    /// A template that does not parse would render as an empty page: catch it here.
    @Test func everyEmbeddedTemplateParses() {
        for (name, _) in TemplateLibrary.sources {
            #expect(TemplateLibrary.all[name] != nil, "\(name)")
        }
    }
}
