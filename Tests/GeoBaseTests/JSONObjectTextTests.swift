import Foundation
import GeoBase
import Testing

/// `JSONObjectText`: members in the order added, each kind of value as the writer promises, and
/// text Foundation's parser (the oracle) reads back to the same values.
struct JSONObjectTextTests {
    @Test func members_inOrder_eachKindAsPromised() throws {
        var inner = JSONObjectText()
        inner.add("x", integer: -3)
        var o = JSONObjectText()
        o.add("name", string: "a\"b\n")
        o.add("none", string: nil)
        o.add("n", integer: 42)
        o.add("noCount", integer: nil)
        o.add("lat", 45.772089791234, .coordinate)
        o.add("nan", .nan, .coordinate)
        o.add("r", roundTrip: 0.1)
        o.add("tiny", roundTrip: 1e-05)
        o.add("inf", roundTrip: .infinity)
        o.add("inner", object: inner)
        o.add("noObject", object: nil)
        o.add("list", objects: [inner, JSONObjectText()])
        o.add("raw", json: "[1,2]")
        #expect(o.text == #"{"name":"a\"b\n","none":null,"n":42,"noCount":null,"lat":45.772089791,"nan":null,"r":0.1,"tiny":1e-05,"#
            + #""inf":null,"inner":{"x":-3},"noObject":null,"list":[{"x":-3},{}],"raw":[1,2]}"#)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(o.text.utf8)) as? [String: Any])
        #expect(parsed["name"] as? String == "a\"b\n" && parsed["tiny"] as? Double == 1e-05 && parsed.count == 13)
    }

    @Test func anEmptyObject_isTwoBraces() {
        #expect(JSONObjectText().text == "{}")
        var o = JSONObjectText()
        o.add("list", objects: [])
        #expect(o.text == #"{"list":[]}"#)
    }

    @Test func keys_areEscapedAsStrings() {
        var o = JSONObjectText()
        o.add("tab\there", integer: 1)
        #expect(o.text == #"{"tab\there":1}"#)
    }
}
