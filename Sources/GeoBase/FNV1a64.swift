/// FNV-1a, 64 bits (Fowler, Noll & Vo; draft-eastlake-fnv-21 §2): a hash that is the same in
/// every process and on every machine, unlike `Hasher`, which is seeded per process. For keys
/// that are stored or shared between processes, and for cheap in-memory keys.
package struct FNV1a64: Sendable, Hashable {
    /// The hash so far; the offset basis before anything is mixed in.
    package var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    /// One step of FNV-1a with `unit` as the octet: XOR, then multiply by the FNV prime 2⁴⁰ + 2⁸ + 0xb3.
    /// Units wider than a byte make a faster variant, not FNV-1a of their bytes.
    @inlinable package mutating func mix(_ unit: UInt64) {
        value = (value ^ unit) &* 0x0000_0100_0000_01b3
    }

    /// FNV-1a of `bytes`, in order.
    @inlinable package mutating func mix<Bytes: Sequence<UInt8>>(bytes: Bytes) {
        for byte in bytes { mix(UInt64(byte)) }
    }

    /// FNV-1a of `word`'s 8 bytes, least significant first.
    @inlinable package mutating func mix(littleEndianBytesOf word: UInt64) {
        var w = word
        for _ in 0..<8 {
            mix(w & 0xff)
            w >>= 8
        }
    }
}
