public import Platform

extension JSONEncoder {
    /// The encoder of the project's compact JSON documents (GeoJSON, TileJSON and style
    /// documents, monitor records): keys sorted, so that one value always gives the same
    /// bytes, and `/` written as itself (RFC 8259 §7 allows it unescaped), so URLs stay
    /// readable.
    public static func stable() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
