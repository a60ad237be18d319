import MapStyle
import Testing

/// CSS colour parsing and colour-space interpolation, with values from CSS Color Module
/// Level 4 and the conformance fixtures; channels 0 … 1, tolerance 1e-6.
@Suite struct StyleColorTests {
    private func channels(_ text: String) -> [Double]? {
        StyleColor(css: text).map { [$0.red, $0.green, $0.blue, $0.alpha] }
    }

    private func close(_ a: [Double]?, _ b: [Double]) -> Bool {
        guard let a, a.count == b.count else { return false }
        return zip(a, b).allSatisfy { abs($0 - $1) < 1e-6 }
    }

    @Test func namedAndHexColours() {
        #expect(close(channels("rebeccapurple"), [0x66 / 255.0, 0x33 / 255.0, 0x99 / 255.0, 1]))
        #expect(close(channels("  Blue "), [0, 0, 1, 1]))
        #expect(close(channels("transparent"), [0, 0, 0, 0]))
        #expect(close(channels("#fff"), [1, 1, 1, 1]))
        #expect(close(channels("#0000ff00"), [0, 0, 1, 0]))
        #expect(close(channels("#f0c8"), [1, 0, 0.8, 0x88 / 255.0]))
        #expect(channels("#ff00c") == nil)
        #expect(channels("oops blue") == nil)
    }

    @Test func functionalNotations() {
        #expect(close(channels("rgba(255, 0, 0, 0.5)"), [1, 0, 0, 0.5]))
        #expect(close(channels("rgb(0% 0% 100% / 0)"), [0, 0, 1, 0]))
        #expect(close(channels("rgb(255 0 255 / 60%)"), [1, 0, 1, 0.6]))
        #expect(close(channels("rgb(300, -5, 0)"), [1, 0, 0, 1])) // clamped
        #expect(close(channels("hsl(120, 100%, 50%)"), [0, 1, 0, 1]))
        #expect(close(channels("hsla(240deg 100% 50% / 0)"), [0, 0, 1, 0]))
        #expect(channels("rgb(255, 0 0)") == nil) // commas all or none
        #expect(channels("rgb(100%, 0, 0)") == nil) // numbers and percentages mixed
        #expect(channels("hsl(120, 100, 50)") == nil) // saturation and lightness need %
    }

    @Test func premultipliedAsMapLibreKeepsColours() {
        #expect(close(StyleColor(css: "rgba(255, 0, 0, 0.5)")?.premultiplied, [0.5, 0, 0, 0.5]))
    }

    @Test func labInterpolationMatchesTheFixture() throws {
        // interpolate-lab/linear-color: red at 1 → blue at 11, at 5 (t = 0.4) → [0.814095, 0, 0.444772, 1].
        let red = try #require(StyleColor(css: "red")), blue = try #require(StyleColor(css: "blue"))
        let mid = StyleColor.interpolate(red, blue, 0.4, space: .lab)
        #expect(close(mid.premultiplied, [0.814095, 0, 0.444772, 1]))
        let rgbMid = StyleColor.interpolate(red, blue, 0.4)
        #expect(close(rgbMid.premultiplied, [0.6, 0, 0.4, 1]))
    }
}
