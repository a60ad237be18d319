/// The one error type of MapRenderer (STYLE.md §3.7): a code that can grow, a message, and for
/// decoding the byte offset where the damage was found.
public struct RenderError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case invalidSize, invalidPNG, unsupportedPNG, invalidSVG, invalidSprite, font, fontNotFound, invalidStyle }
        private let value: Value
        /// An image size outside the accepted range, or bytes that do not fit it.
        public static let invalidSize = Code(value: .invalidSize)
        /// PNG bytes that break the PNG specification (signature, chunk, CRC, zlib, filter).
        public static let invalidPNG = Code(value: .invalidPNG)
        /// A valid PNG this decoder does not read (for example Adam7 interlacing).
        public static let unsupportedPNG = Code(value: .unsupportedPNG)
        /// An SVG document librsvg cannot read or draw, or one without a size, or librsvg missing.
        public static let invalidSVG = Code(value: .invalidSVG)
        /// Icon files that do not make one sprite: a 2× drawing without its 1× icon, or two
        /// files naming the same icon.
        public static let invalidSprite = Code(value: .invalidSprite)
        /// A font that FreeType or HarfBuzz cannot open, or text no configured font covers.
        public static let font = Code(value: .font)
        /// A font file found in none of the folders it is looked for in.
        public static let fontNotFound = Code(value: .fontNotFound)
        /// A style value out of range.
        public static let invalidStyle = Code(value: .invalidStyle)
        public var description: String { "\(value)" }
    }

    public let code: Code
    public let message: String
    /// Byte offset into the decoded data, when the error is about bytes.
    public let offset: Int?

    public init(_ code: Code, _ message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String { offset.map { "\(message) (at byte \($0))" } ?? message }
}
