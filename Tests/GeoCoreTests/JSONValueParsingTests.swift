import Foundation
import GeoCore
import Testing

/// `JSONValue(parsing:)` against nst/JSONTestSuite's parsing cases (Fixtures/json-test-suite.*)
/// and, where Foundation's decoder reads a case too, against its values.
@Suite struct JSONValueParsingTests {
    struct Case { var name: String; var bytes: [UInt8] }

    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/json-test-suite.jsonl")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { line in
            let record = try! JSONDecoder().decode([String: JSONValue].self, from: Data(line.utf8))
            func bytes(_ key: String) -> [UInt8] {
                guard case .string(let b64)? = record[key] else { return [] }
                return [UInt8](Data(base64Encoded: b64)!)
            }
            var all: [UInt8] = []
            if case .number(let times)? = record["times"] { for _ in 0..<Int(times) { all += bytes("repeat") } }
            all += bytes("bytes")
            guard case .string(let name)? = record["name"] else { fatalError("a case without a name: \(line)") }
            return Case(name: name, bytes: all)
        }
    }()

    @Test func jsonTestSuite_acceptsEveryY_refusesEveryN_andSurvivesEveryI() {
        #expect(Self.cases.count == 318)
        var accepted = 0, refused = 0
        for c in Self.cases {
            let parsed = Result { () throws(JSONSyntaxError) in try JSONValue(parsing: c.bytes) }
            switch (c.name.prefix(2), parsed) {
            case ("y_", .success): accepted += 1
            case ("n_", .failure(let error)):
                refused += 1
                #expect(error.offset >= 0 && error.offset <= c.bytes.count, "\(c.name): \(error)")
            case ("y_", .failure(let error)): Issue.record("\(c.name) must parse: \(error)")
            case ("n_", .success(let value)): Issue.record("\(c.name) must not parse, got \(value)")
            default: break // i_: the implementation decides; it must only not crash
            }
        }
        #expect(accepted == 95 && refused == 188)
    }

    /// Foundation's `JSONDecoder` as a second oracle: every case both read gives the same value
    /// (numbers compared exactly; Foundation refuses some of the suite's y_ numbers, left out),
    /// except repeated member names: Foundation keeps the first, this parser the last, as
    /// ECMAScript's `JSON.parse` does (ECMA-262 §25.5.1; MapLibre reads styles with it).
    @Test func values_equalFoundationsWhereItReadsTheCase() throws {
        var compared = 0
        for c in Self.cases where !c.name.hasPrefix("n_") && !c.name.hasPrefix("y_object_duplicated_key") {
            guard let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(c.bytes)),
                  let ours = try? JSONValue(parsing: c.bytes) else { continue }
            #expect(ours == foundation, "\(c.name)")
            compared += 1
        }
        #expect(compared >= 80, "compared \(compared) cases")
    }

    /// Escapes as RFC 8259 §7 defines them: a surrogate pair is one scalar, a lone surrogate
    /// becomes U+FFFD; the last of repeated member names counts.
    @Test func escapes_surrogates_andRepeatedNames() throws {
        #expect(try JSONValue(parsing: Array(#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\ud83d\ude00", "x\ud800y", "\udc00"]"#.utf8))
            == .array([.string("a\"b\\c/d\u{8}\u{C}\n\r\t"), .string("é😀"), .string("x\u{FFFD}y"), .string("\u{FFFD}")]))
        #expect(try JSONValue(parsing: Array(#"{"a": 1, "a": [true, null, -0.5e1]}"#.utf8)) == .object(["a": .array([.bool(true), .null, .number(-5)])]))
        #expect(try JSONValue(parsing: Array("1e400".utf8)) == .number(.infinity))
    }

    /// Where a text stops being JSON: line, column and offset of the byte the grammar refuses.
    @Test func errors_sayWhere() {
        #expect(throws: JSONSyntaxError(locatingIn: Array("{\"a\": 1,\n \"b\" 2}".utf8))!) { try JSONValue(parsing: Array("{\"a\": 1,\n \"b\" 2}".utf8)) }
        let error = JSONSyntaxError(locatingIn: Array("{\"a\": 1,\n \"b\" 2}".utf8))
        #expect(error?.line == 2 && error?.column == 6 && error?.offset == 14 && error?.message == "expected ':' after a member name")
        #expect(JSONSyntaxError(locatingIn: Array("[1] x".utf8))?.message == "text after the JSON value")
        #expect(JSONSyntaxError(locatingIn: Array(String(repeating: "[", count: 513).utf8))?.message == "nesting deeper than 512 levels")
        #expect(JSONSyntaxError(locatingIn: Array(" [1, {\"k\": \"v\"}] ".utf8)) == nil)
    }
}

/// `JSONEncoder.stable()`: members in sorted key order whatever order they were built in, so
/// two encodings of one value are the same bytes, and `/` unescaped (RFC 8259 §7 makes the
/// escape optional; Foundation's default writes `\/`); compact, no spaces or newlines.
@Test func stableEncoder_sortsKeysAndLeavesSlashesUnescaped() throws {
    let value = JSONValue.object(["tiles": .array([.string("local://tiles/{z}/{x}/{y}.pbf")]), "b": .number(1), "a": .object(["z": .null, "y": .bool(true)])])
    let text = String(decoding: try JSONEncoder.stable().encode(value), as: UTF8.self)
    #expect(text == #"{"a":{"y":true,"z":null},"b":1,"tiles":["local://tiles/{z}/{x}/{y}.pbf"]}"#)
    let plain = String(decoding: try JSONEncoder().encode(JSONValue.string("a/b")), as: UTF8.self)
    #expect(plain == #""a\/b""#) // the default the stable encoder turns off
}
