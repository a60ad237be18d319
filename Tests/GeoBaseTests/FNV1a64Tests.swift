import Testing
import GeoBase

/// `FNV1a64` against the FNV reference's test vectors (draft-eastlake-fnv-21, appendix C).
@Suite struct FNV1a64Tests {
    @Test func referenceVectors() {
        func fnv(_ text: String) -> UInt64 {
            var h = FNV1a64()
            h.mix(bytes: text.utf8)
            return h.value
        }
        #expect(fnv("") == 0xcbf2_9ce4_8422_2325)
        #expect(fnv("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(fnv("foobar") == 0x8594_4171_f739_67e8)
        // A word's bytes least significant first: "foobar" as a little-endian word, padded with two zero bytes.
        var word = FNV1a64()
        word.mix(littleEndianBytesOf: 0x0000_7261_626f_6f66)
        var bytes = FNV1a64()
        bytes.mix(bytes: Array("foobar".utf8) + [0, 0])
        #expect(word.value == bytes.value)
    }
}
