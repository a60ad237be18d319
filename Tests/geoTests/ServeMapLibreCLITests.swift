import Foundation
import GeoTestSupport
import Synchronization
import SystemIO
import Testing

/// A Bright-like style (OpenMapTiles layers: land cover, land use, parks, water, buildings,
/// roads, rail; no labels) whose one source names the archive as `pmtiles://`, which
/// `geo serve` rewrites to its own TileJSON.
private let brightStyle = ##"""
{"version":8,"name":"bright","sources":{"openmaptiles":{"type":"vector","url":"pmtiles://monaco.pmtiles"}},"layers":[
{"id":"background","type":"background","paint":{"background-color":"#f8f4f0"}},
{"id":"landcover-grass","type":"fill","source":"openmaptiles","source-layer":"landcover","filter":["==",["get","class"],"grass"],"paint":{"fill-color":"#d8e8c8"}},
{"id":"landcover-wood","type":"fill","source":"openmaptiles","source-layer":"landcover","filter":["==",["get","class"],"wood"],"paint":{"fill-color":"#b8d8a0"}},
{"id":"landuse","type":"fill","source":"openmaptiles","source-layer":"landuse","paint":{"fill-color":"#ece4dc"}},
{"id":"park","type":"fill","source":"openmaptiles","source-layer":"park","paint":{"fill-color":"#c8e6b4"}},
{"id":"water","type":"fill","source":"openmaptiles","source-layer":"water","paint":{"fill-color":"#a0c8f0"}},
{"id":"building","type":"fill","source":"openmaptiles","source-layer":"building","paint":{"fill-color":"#d9d0c9","fill-outline-color":"#bfb4ab"}},
{"id":"road-minor","type":"line","source":"openmaptiles","source-layer":"transportation","filter":["match",["get","class"],["minor","service"],true,false],"paint":{"line-color":"#ffffff","line-width":3}},
{"id":"road-major","type":"line","source":"openmaptiles","source-layer":"transportation","filter":["match",["get","class"],["primary","secondary","tertiary","trunk","motorway"],true,false],"paint":{"line-color":"#fdd78b","line-width":5}},
{"id":"rail","type":"line","source":"openmaptiles","source-layer":"transportation","filter":["==",["get","class"],"rail"],"paint":{"line-color":"#999999","line-width":2}}]}
"""##

/// The page MapLibre GL JS draws in: the served style at Monaco's port, zoom 14, 512 × 512 CSS
/// px at device pixel ratio 1; once the map is idle it POSTs its canvas as a PNG data URL (or
/// the errors it met) to `REPORT`. Chromium's virtual time does not wait for the tile fetches of
/// MapLibre's workers, so the page reports instead of being dumped at a time budget's end.
private let page = """
<!doctype html><html><body style="margin:0"><div id="map" style="width:512px;height:512px"></div>
<script src="maplibre-gl.js"></script>
<script>
const errors = [];
const map = new maplibregl.Map({container: 'map', style: 'STYLE', center: [7.4215, 43.7384], zoom: 14,
  interactive: false, fadeDuration: 0, attributionControl: false, canvasContextAttributes: {preserveDrawingBuffer: true}});
map.on('error', e => errors.push(String(e.error && e.error.message)));
map.once('idle', () => fetch('REPORT', {method: 'POST', mode: 'no-cors',
  body: errors.length ? 'errors ' + errors.join('; ') : map.getCanvas().toDataURL('image/png')}));
</script></body></html>
"""

/// The issue's real client: MapLibre GL JS 5.3 (the PyPI `maplibre` wheel's maplibre-gl.js) in
/// Debian's headless Chromium loads `http://127.0.0.1:P/styles/bright/style.json` from `geo
/// serve` (a Monaco archive cut by `geo tiles build`) and draws Monaco; `geo snapshot --style`
/// draws the same view from the same served style, TileJSON and tiles (mirrored to a folder).
/// Compared as the style issue's check compares (pixelmatch 0.4, threshold 0.13, anti-aliased
/// pixels not counted): at most 2 % of the pixels differ (0.3 % measured; the rest are building
/// outlines' rasterization), and the water colour covers at least 10 % of MapLibre's picture
/// (the harbour and the sea: tiles reached the page).
@Test(.onOwnThread, .timeLimit(.minutes(10)))
func serve_mapLibreGLJSInChromium_drawsMonacoAsGeoSnapshotDoes() async throws {
    guard let osm = try Fixtures.url("osm/monaco.osm.pbf"), let (chromium, python, maplibre) = try await browserAndMapLibre() else { return }
    // A short label: Chromium's socket in `dir/org.chromium.Chromium.XXXXXX/` must stay under
    // the 107 bytes of a Unix socket path.
    try await withTemporaryDirectory("ml") { dir in
        let archive = dir.appendingPathComponent("monaco.pmtiles").path
        let build = try await GeoProcess.geo(["tiles", "build", osm.path, "-o", archive, "--minzoom", "14", "--maxzoom", "14"])
        try #require(build.status == 0, "\(build.stderr)")
        let stylePath = dir.appendingPathComponent("bright.json")
        try Data(brightStyle.utf8).write(to: stylePath)
        let port = FreePort.take()
        let log = dir.appendingPathComponent("serve.log").path
        let server = try ChildProcess.spawn(.init(executable: GeoProcess.geoExecutable.path,
                                                  arguments: ["serve", archive, "--style", stylePath.path, "--cors", "*", "--port", String(port), "--host", "127.0.0.1"],
                                                  standardOutput: .nullDevice, standardError: .file(log)))
        defer { _ = server.kill() }
        try #require(await GPSFake.waitUntilListening(port: port), "geo serve listens on \(port)")
        let base = "http://127.0.0.1:\(port)"

        let maplibrePNG = try await mapLibreDraws(style: "\(base)/styles/bright/style.json", chromium: chromium, maplibre: maplibre, in: dir)

        // The same view by geo snapshot --style, from what the server served: its style,
        // TileJSON and z14 tiles, mirrored where --base resolves http://127.0.0.1:P/… URLs.
        let mirror = dir.appendingPathComponent("mirror")
        let styleJSON = try await serveGet(port, "/styles/bright/style.json")
        let tileJSON = try await serveGet(port, "/monaco.json")
        try #require(styleJSON.status == 200 && tileJSON.status == 200)
        try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
        try Data(styleJSON.body).write(to: mirror.appendingPathComponent("style.json"))
        try Data(tileJSON.body).write(to: mirror.appendingPathComponent("monaco.json"))
        var tiles = 0
        // Monaco at z14: columns 8527…8531, rows 5971…5975 hold it and its sea.
        for x in 8527...8531 {
            for y in 5971...5975 {
                let tile = try await serveGet(port, "/monaco/14/\(x)/\(y).pbf")
                guard tile.status == 200 else { continue }
                let folder = mirror.appendingPathComponent("monaco/14/\(x)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(tile.body).write(to: folder.appendingPathComponent("\(y).pbf"))
                tiles += 1
            }
        }
        #expect(tiles >= 9)
        let geoPNG = dir.appendingPathComponent("geo.png")
        let snapshot = try await GeoProcess.geo(["snapshot", "--style", mirror.appendingPathComponent("style.json").path, "--base", mirror.path,
                                                 "--center", "43.7384,7.4215", "--zoom", "14", "--size", "512x512", "-o", geoPNG.path])
        try #require(snapshot.status == 0, "\(snapshot.stderr)")
        let served = try String(contentsOfFile: log, encoding: .utf8)
        #expect(served.contains("GET /monaco/14/") && served.contains("GET /monaco.json 200"), "MapLibre read the tiles from geo serve")

        let (differing, water) = try await compare(maplibrePNG, geoPNG, water: (0xa0, 0xc8, 0xf0), python: python)
        #expect(differing <= 0.02, "pixelmatch share of differing pixels: \(differing)")
        #expect(water >= 0.10, "water share of MapLibre's picture: \(water)")
    }
}

/// The built-in style as MapLibre clients get it: `geo serve ARCHIVE` offers
/// `/styles/default/style.json` (no `--style`, no `--fonts`), its source pointed at the archive
/// and its labels' glyphs made from the local Noto fonts on request; MapLibre GL JS 5.3 in
/// headless Chromium draws it (labels included: the map reports idle only once their glyphs
/// came) as `geo snapshot --style default` draws the same archive and view — at most 5 % of the
/// pixels differ (the real-style goal of the style issue; 1.4 % measured: MapLibre fits two more
/// street names), and the default style's sea colour covers at least 10 % of MapLibre's picture.
@Test(.onOwnThread, .timeLimit(.minutes(10)))
func serve_builtInDefaultStyle_withGlyphsFromLocalFonts_drawnByMapLibreAsGeoSnapshotDraws() async throws {
    guard let osm = try Fixtures.url("osm/monaco.osm.pbf"), let (chromium, python, maplibre) = try await browserAndMapLibre() else { return }
    try await withTemporaryDirectory("md") { dir in
        let archive = dir.appendingPathComponent("monaco.pmtiles").path
        let build = try await GeoProcess.geo(["tiles", "build", osm.path, "-o", archive, "--minzoom", "14", "--maxzoom", "14"])
        try #require(build.status == 0, "\(build.stderr)")
        let port = FreePort.take()
        let log = dir.appendingPathComponent("serve.log").path
        let server = try ChildProcess.spawn(.init(executable: GeoProcess.geoExecutable.path,
                                                  arguments: ["serve", archive, "--cors", "*", "--port", String(port), "--host", "127.0.0.1"],
                                                  standardOutput: .nullDevice, standardError: .file(log)))
        defer { _ = server.kill() }
        try #require(await GPSFake.waitUntilListening(port: port), "geo serve listens on \(port)")
        let maplibrePNG = try await mapLibreDraws(style: "http://127.0.0.1:\(port)/styles/default/style.json", chromium: chromium, maplibre: maplibre, in: dir)
        let served = try String(contentsOfFile: log, encoding: .utf8)
        #expect(served.contains("GET /fonts/Noto%20Sans%20Regular/0-255.pbf 200"), "MapLibre took the labels' glyphs from geo serve: \(served.prefix(2000))")
        let geoPNG = dir.appendingPathComponent("geo.png")
        let snapshot = try await GeoProcess.geo(["snapshot", "--style", "default", "--data", archive,
                                                 "--center", "43.7384,7.4215", "--zoom", "14", "--size", "512x512", "-o", geoPNG.path])
        try #require(snapshot.status == 0, "\(snapshot.stderr)")
        let (differing, sea) = try await compare(maplibrePNG, geoPNG, water: (0xaa, 0xd3, 0xdf), python: python)
        #expect(differing <= 0.05, "pixelmatch share of differing pixels: \(differing)")
        #expect(sea >= 0.10, "sea share of MapLibre's picture: \(sea)")
    }
}

/// Chromium, python3 and MapLibre GL JS's file (the PyPI `maplibre` wheel's), with pixelmatch
/// and Pillow importable; nil (an issue recorded under CI) when one is missing.
private func browserAndMapLibre() async throws -> (chromium: URL, python: URL, maplibre: String)? {
    let chromium = GeoProcess.which("chromium"), python = GeoProcess.which("python3")
    var js: ProcessResult?
    if let python {
        js = try await GeoProcess.run(python, ["-c", "import importlib.util as u, pixelmatch, PIL; print(u.find_spec('maplibre').submodule_search_locations[0])"])
    }
    guard let chromium, let python, let js, js.status == 0 else {
        if Fixtures.isCI { Issue.record("CI needs chromium and python3 with maplibre, pixelmatch and pillow (scripts/setup.sh): \(js?.stderr ?? "")") }
        return nil
    }
    return (chromium, python, js.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/srcjs/maplibre-gl.js")
}

/// Two 512 × 512 pictures compared as the style issue's check compares (pixelmatch 0.4,
/// threshold 0.13, anti-aliased pixels not counted): the share of differing pixels, and the
/// share of the first picture within 6 (summed over R, G, B) of the colour `water`.
private func compare(_ a: URL, _ b: URL, water: (Int, Int, Int), python: URL) async throws -> (differing: Double, water: Double) {
    let script = """
    import sys; from PIL import Image; from pixelmatch.contrib.PIL import pixelmatch
    a = Image.open(sys.argv[1]).convert('RGBA'); b = Image.open(sys.argv[2]).convert('RGBA')
    assert a.size == b.size == (512, 512), (a.size, b.size)
    n = pixelmatch(a, b, threshold=0.13, includeAA=False)
    r, g, bl = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    water = sum(1 for p in a.getdata() if abs(p[0] - r) + abs(p[1] - g) + abs(p[2] - bl) <= 6)
    print(n / (512 * 512), water / (512 * 512))
    """
    let scored = try await GeoProcess.run(python, ["-c", script, a.path, b.path, String(water.0), String(water.1), String(water.2)])
    let shares = scored.stdout.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    try #require(scored.status == 0 && shares.count == 2, "\(scored.stderr)")
    return (shares[0], shares[1])
}

/// The page's picture: MapLibre GL JS (`maplibre`, its maplibre-gl.js) in headless Chromium
/// draws `style` (a URL) in `dir`; the PNG's path, once the map reported idle without errors.
private func mapLibreDraws(style: String, chromium: URL, maplibre: String, in dir: URL) async throws -> URL {
    // MapLibre in Chromium; its report arrives on a listener of this test.
    let report = try TCPServer(port: 0)
    defer { report.close() }
    let posted = PostedBody()
    Thread { while let client = try? report.accept() { Thread { posted.receive(client) }.start() } }.start()
    let web = dir.appendingPathComponent("web")
    try FileManager.default.createDirectory(at: web, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: maplibre, toPath: web.appendingPathComponent("maplibre-gl.js").path)
    let html = page.replacingOccurrences(of: "STYLE", with: style)
        .replacingOccurrences(of: "REPORT", with: "http://127.0.0.1:\(report.port)/")
    try Data(html.utf8).write(to: web.appendingPathComponent("page.html"))
    let browser = try ChildProcess.spawn(.init(
        executable: chromium.path,
        arguments: ["--headless=new", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--force-device-scale-factor=1",
                    "--window-size=600,600", "--user-data-dir=\(dir.path)/profile", web.appendingPathComponent("page.html").absoluteString],
        // Its own TMPDIR: a Chromium that is killed leaves its `org.chromium.*` folders behind.
        environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": dir.path]) { $1 },
        standardOutput: .nullDevice, standardError: .nullDevice, newProcessGroup: true))
    defer { _ = browser.kill() }
    // Bounded: 900 polls of 200 ms, three minutes on a loaded 2-core machine (7 s alone).
    var body: [UInt8]?
    for _ in 0..<900 where body == nil {
        body = posted.body.withLock { $0 }
        if body == nil { try await Task.sleep(for: .milliseconds(200)) }
    }
    _ = browser.kill()
    let text = String(decoding: try #require(body, "MapLibre never reported an idle map"), as: UTF8.self)
    let prefix = "data:image/png;base64,"
    try #require(text.hasPrefix(prefix), "MapLibre: \(text.prefix(500))")
    let png = dir.appendingPathComponent("maplibre.png")
    try #require(Data(base64Encoded: String(text.dropFirst(prefix.count)))).write(to: png)
    return png
}

/// One HTTP/1.1 GET to `geo serve` on 127.0.0.1, without gzip: status and body.
private func serveGet(_ port: Int, _ target: String) async throws -> (status: Int, body: [UInt8]) {
    let socket = try TCPClient.connect(host: "127.0.0.1", port: port)
    defer { try? socket.close() }
    try socket.writeAll("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
    let response = try socket.readToEnd(limit: 1 << 26)
    let end = try #require(response.indices.first { response[$0...].starts(with: [13, 10, 13, 10]) })
    let status = Int(String(decoding: response[..<end], as: UTF8.self).split(separator: " ").dropFirst().first ?? "") ?? 0
    return (status, Array(response[(end + 4)...]))
}

/// The body of the page's report, once a POST brought one.
private final class PostedBody: Sendable {
    let body = Mutex<[UInt8]?>(nil)

    /// Reads one request from `client`; a POST's body (to its `Content-Length`, at most 64 MiB)
    /// is kept, and the request is answered 204.
    func receive(_ client: FileDescriptor) {
        defer { try? client.close() }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 1 << 26 {
            if let end = bytes.indices.first(where: { bytes[$0...].starts(with: [13, 10, 13, 10]) }) {
                let head = String(decoding: bytes[..<end], as: UTF8.self)
                guard head.hasPrefix("POST") else { return }
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if bytes.count - end - 4 >= length {
                    body.withLock { $0 = Array(bytes[(end + 4)..<(end + 4 + length)]) }
                    try? client.writeAll("HTTP/1.1 204 No Content\r\nAccess-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n")
                    return
                }
            }
            let n = (try? chunk.withUnsafeMutableBytes { try client.read(into: $0) }) ?? 0
            guard n > 0 else { return }
            bytes += chunk[0..<n]
        }
    }
}
