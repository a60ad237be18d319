/// Where the URLs a style names live on disk, as `geo snapshot --style` resolves them
/// (CONTRACT "geo snapshot --style"): `local://PATH` under a base folder (the render test
/// suite's fixtures) and so does `http://localhost[:PORT]/PATH` (the suite's fixture server),
/// `file://PATH` as written, other relative URLs against the style's folder. Other network URLs
/// (`http:`, `https:`, `mapbox:`) are not fetched.
public struct StyleResourcePaths: Sendable {
    public var base: String?
    public var styleFolder: String

    public init(base: String?, styleFolder: String) {
        self.base = base
        self.styleFolder = styleFolder
    }

    /// The paths of the style file at `stylePath`: its relative URLs against its folder (`.`
    /// for a bare file name).
    public init(base: String?, stylePath: String) {
        self.init(base: base, styleFolder: stylePath.lastIndex(of: "/").map { String(stylePath[..<$0]) } ?? ".")
    }

    /// The largest resource (tile, GeoJSON, image) a style's URL may name, bytes.
    public static let maximumResourceSize = 256 << 20

    /// The bytes of `url` (a `StyleSnapshot` loader): its file read by `read`, which is given
    /// the path and ``maximumResourceSize``.
    /// - Throws: as ``path(for:)``, or what `read` throws.
    public func load(_ url: String, read: (_ path: String, _ limit: Int) throws -> [UInt8]) throws -> [UInt8] {
        try read(try path(for: url), Self.maximumResourceSize)
    }

    /// The file path of `url`.
    /// - Throws: ``StyleRenderError`` for a network URL, or a `local://` URL without a base.
    public func path(for url: String) throws(StyleRenderError) -> String {
        if url.hasPrefix("local://") {
            guard let base else { throw StyleRenderError("\(url): local:// URLs need --base") }
            return Self.join(base, String(url.dropFirst("local://".count)))
        }
        if url.hasPrefix("file://") { return String(url.dropFirst("file://".count)) }
        // The render test suite's fixture server (`http://localhost:2900/tiles/…` in its TileJSON
        // files) serves the same folder local:// names.
        for host in ["http://localhost", "http://127.0.0.1"] where url.hasPrefix(host) {
            var rest = url.dropFirst(host.count)
            if rest.first == ":" { rest = rest.drop { $0 != "/" } }
            guard rest.first == "/", let base else { break }
            return Self.join(base, String(rest.dropFirst()))
        }
        if let colon = url.firstIndex(of: ":"), url[..<colon].allSatisfy({ $0.isLetter }), url[..<colon].count > 1 {
            throw StyleRenderError("\(url): network URLs are not fetched")
        }
        return url.hasPrefix("/") ? url : Self.join(styleFolder, url)
    }

    private static func join(_ folder: String, _ path: String) -> String {
        folder.isEmpty ? path : folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }
}
