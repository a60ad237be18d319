import Foundation
import GeoCore
import GeoTestSupport
import HTTPServing
import MapCamera
import MapData
@testable import MapLivePage
import MapRenderer
import MapView
import SystemIO
import Testing

/// A bare WebSocket client over a TCP socket (RFC 6455 §4.1 handshake, §5.2 masked frames), to
/// drive the page's socket as the page does and to drop it without a close frame.
private struct RawWebSocket {
    let fd: FileDescriptor

    init(port: Int, path: String = "/ws", origin: String? = nil) throws {
        fd = try TCPClient.connect(host: "127.0.0.1", port: port)
        try fd.writeAll("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")
                        + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) { head += try read(1) }
        let status = String(decoding: head, as: UTF8.self)
        guard status.hasPrefix("HTTP/1.1 101") else { throw SystemIOError(.invalidArgument, "no upgrade: \(status)") }
    }

    func read(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count), got = 0
        while got < count {
            let n = try out.withUnsafeMutableBytes { try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[got...])) }
            guard n > 0 else { throw SystemIOError(.invalidArgument, "connection closed") }
            got += n
        }
        return out
    }

    /// Sends one masked text frame.
    func send(_ text: String) throws {
        let payload = Array(text.utf8), mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var frame: [UInt8] = [0x81]
        if payload.count < 126 { frame.append(0x80 | UInt8(payload.count)) } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try fd.writeAll(frame)
    }

    /// Reads frames until a binary one (a map frame) and returns its payload.
    func nextBinaryFrame() throws -> [UInt8] {
        while true {
            let h = try read(2)
            var length = Int(h[1] & 0x7F)
            if length == 126 { let l = try read(2); length = Int(l[0]) << 8 | Int(l[1]) }
            else if length == 127 { length = try read(8).reduce(0) { $0 << 8 | Int($1) } }
            let payload = try read(length)
            if h[0] & 0x0F == 2 { return payload }
        }
    }
}

/// The live page end to end: the server in this process, a socket driving it as the page does
/// (drag, then wheel zoom), dropped mid-gesture; then headless Chromium loads the page and its
/// screenshot shows the map. Chromium is Debian's `chromium` (scripts/setup.sh installs it).
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func livePage_dragZoomDisconnect_thenChromiumShowsTheMap() async throws {
    let features = try sampleCityIndex()
    let view = try MapSession.View(camera: camera(zoom: 15, size: (640, 400)), features: features)
    let session = MapSession(view: view)
    let port = FreePort.take()
    let server = Task { try await LivePageServer.run(session, options: .init(port: port, hosts: ["127.0.0.1"])) { _ in } }
    defer { server.cancel() }
    // The server is up when a connection is accepted (bounded: 600 tries, a minute on a loaded machine).
    var socket: RawWebSocket?
    for _ in 0..<600 where socket == nil {
        socket = try? RawWebSocket(port: port)
        if socket == nil { try await Task.sleep(for: .milliseconds(100)) }
    }
    let ws = try #require(socket, "the server never accepted a connection")
    // Another site's page cannot open the socket that carries the position (issue 36 item 1).
    #expect(throws: SystemIOError.self) { try RawWebSocket(port: port, origin: "https://evil.example") }
    let first = try ws.nextBinaryFrame()
    #expect(try PNG.decode(first).width == 640)
    let before = await session.status()
    try ws.send(#"{"type":"begin"}"#)
    try ws.send(#"{"type":"pan","x":320,"y":200,"x2":420,"y2":260}"#)
    try ws.send(#"{"type":"end"}"#)
    try ws.send(#"{"type":"zoom","x":100,"y":100,"scale":2}"#)
    try ws.send(#"{"type":"end"}"#)
    try ws.send(#"{"type":"begin"}"#)
    try ws.send(#"{"type":"pan","x":320,"y":200,"x2":300,"y2":200}"#)
    _ = try ws.nextBinaryFrame()
    // Gone mid-gesture, without a close frame.
    try ws.fd.close()
    var ended = false
    for _ in 0..<100 where !ended {
        ended = await !session.isGestureActive
        if !ended { try await Task.sleep(for: .milliseconds(100)) }
    }
    #expect(ended, "the dropped page's gesture ended")
    let after = await session.status()
    #expect(after != before)
    #expect(after.contains("\"zoomLevel\":16"), "one wheel step of scale 2 is one zoom level: \(after)")

    // Headless Chromium right after load.
    guard FileManager.default.fileExists(atPath: "/usr/bin/chromium") || Fixtures.isCI else { return }
    try await withTemporaryDirectory { dir in
        let shot = dir.appendingPathComponent("page.png")
        let result = try await GeoProcess.run(URL(fileURLWithPath: "/usr/bin/chromium"),
                                              ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=800,600",
                                               "--virtual-time-budget=5000", "--user-data-dir=\(dir.path)/profile",
                                               "--screenshot=\(shot.path)", "http://127.0.0.1:\(port)/"], timeout: .seconds(120))
        #expect(result.status == 0, "chromium: \(result.stderr.suffix(500))")
        let image = try PNG.decode([UInt8](Data(contentsOf: shot)))
        var colours = Set<Color>()
        for y in stride(from: 0, to: image.height, by: 2) { for x in stride(from: 0, to: image.width, by: 2) { colours.insert(image.color(x: x, y: y)) } }
        #expect(colours.count >= 24, "a map, not a blank page: \(colours.count) colours")
        // The map's land colour fills much of the page.
        let land = (0..<image.height).reduce(0) { n, y in n + (0..<image.width).filter { image.color(x: $0, y: y) == MapStyle.day.land }.count }
        #expect(land > image.width * image.height / 10)
    }
}

/// The body of `GET path` on 127.0.0.1:port, read to its Content-Length (Chromium's DevTools
/// server keeps the connection open).
private func httpGet(port: Int, _ path: String) throws -> String {
    let fd = try TCPClient.connect(host: "127.0.0.1", port: port)
    defer { try? fd.close() }
    try fd.writeAll("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let text = String(decoding: bytes, as: UTF8.self)
        if let end = text.range(of: "\r\n\r\n"),
           let line = text[..<end.lowerBound].split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
           let length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
           text[end.upperBound...].utf8.count >= length {
            return String(text[end.upperBound...])
        }
        let n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
        guard n > 0 else { return "" }
        bytes += chunk[0..<n]
    }
}

/// Runs `body` with `session`'s live page open in headless Chromium (a `size` window) and a
/// function that sends the page a left-button mouse event through the DevTools protocol
/// (`Input.dispatchMouseEvent`: type, x, y in page pixels); `body` gets the Chromium process
/// too, to kill it.
private func withChromiumPage(_ session: MapSession, size: (Int, Int),
                              _ body: (ChildProcess, (String, Double, Double) throws -> Void) async throws -> Void) async throws {
    let port = FreePort.take(), devtools = FreePort.take()
    let server = Task { try await LivePageServer.run(session, options: .init(port: port, hosts: ["127.0.0.1"])) { _ in } }
    defer { server.cancel() }
    // A short label: Chromium's socket in `dir/org.chromium.Chromium.XXXXXX/` must stay under
    // the 107 bytes of a Unix socket path.
    try await withTemporaryDirectory("cr") { dir in
        let chromium = try ChildProcess.spawn(.init(
            executable: "/usr/bin/chromium",
            arguments: ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=\(size.0),\(size.1)", "--user-data-dir=\(dir.path)/profile",
                        "--remote-debugging-port=\(devtools)", "http://127.0.0.1:\(port)/"],
            // Its own TMPDIR: a Chromium that is killed leaves its `org.chromium.*` folders behind.
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": dir.path]) { $1 },
            standardOutput: .nullDevice, standardError: .nullDevice, newProcessGroup: true))
        defer { _ = chromium.kill() }
        // The page's DevTools socket, once Chromium lists it (bounded: 300 tries, a minute).
        var target: String?
        for _ in 0..<300 where target == nil {
            if let list = try? httpGet(port: devtools, "/json/list"),
               let targets = try? JSONSerialization.jsonObject(with: Data(list.utf8)) as? [[String: Any]],
               let page = targets.first(where: { ($0["type"] as? String) == "page" && (($0["url"] as? String) ?? "").contains("\(port)") }),
               let url = page["webSocketDebuggerUrl"] as? String, let slash = url.range(of: "/devtools/") {
                target = String(url[slash.lowerBound...])
            } else {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let cdp = try RawWebSocket(port: devtools, path: try #require(target, "Chromium never listed the page"))
        var id = 0
        func mouse(_ type: String, _ x: Double, _ y: Double) throws {
            id += 1
            try cdp.send(#"{"id":\#(id),"method":"Input.dispatchMouseEvent","params":{"type":"\#(type)","x":\#(x),"y":\#(y),"button":"left","buttons":1,"clickCount":1}}"#)
        }
        try await body(chromium, mouse)
    }
}

/// Presses the mouse at (x, y) until the page's socket is open and its "begin" has arrived
/// (bounded: 600 tries, two minutes on a loaded machine).
private func pressUntilTheGestureBegins(_ session: MapSession, _ mouse: (String, Double, Double) throws -> Void, _ x: Double, _ y: Double) async throws {
    for _ in 0..<600 where await !session.isGestureActive {
        try mouse("mousePressed", x, y)
        try await Task.sleep(for: .milliseconds(200))
    }
    #expect(await session.isGestureActive, "the page's mouse press began a gesture")
}

/// A person drags the map in headless Chromium and the browser dies mid-drag: the view is left
/// consistent — the gesture ended, the camera where the drag took it, frames still drawn,
/// and the next page's gesture works from there.
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func livePage_chromiumDiesMidDrag_leavesTheViewConsistent() async throws {
    guard FileManager.default.fileExists(atPath: "/usr/bin/chromium") || Fixtures.isCI else { return }
    let view = try MapSession.View(camera: camera(zoom: 15, size: (640, 400)), features: try sampleCityIndex())
    let session = MapSession(view: view)
    try await withChromiumPage(session, size: (640, 400)) { chromium, mouse in
        let before = await session.status()
        try await pressUntilTheGestureBegins(session, mouse, 320, 200)
        for step in 1...10 {
            try mouse("mouseMoved", 320 + Double(step) * 10, 200 + Double(step) * 6)
            try await Task.sleep(for: .milliseconds(30))
        }
        var moved = false
        for _ in 0..<100 where !moved {
            moved = await session.status() != before
            if !moved { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(moved, "the drag moved the camera")
        #expect(await session.isGestureActive, "still dragging: no mouse release was sent")
        // The browser dies mid-drag: no mouse release, no close frame.
        _ = chromium.kill()
        _ = try await chromium.exitStatus(timeout: .seconds(30))
        var ended = false
        for _ in 0..<100 where !ended {
            ended = await !session.isGestureActive
            if !ended { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(ended, "the dead page's gesture ended")
        let after = await session.status()
        #expect(after != before)
        // Consistent: frames are drawn, and the next page drags from where the camera is.
        #expect(try PNG.decode(await session.png()).width == 640)
        #expect(await session.handle(#"{"type":"pan","x":320,"y":200,"x2":300,"y2":200}"#, connection: 99) == nil)
        #expect(await session.handle(#"{"type":"end"}"#, connection: 99) == nil)
        #expect(await !session.isGestureActive)
        #expect(await session.status() != after)
    }
}

/// A click on the page (press and release in place) is a tap on the view: it picks what lies
/// there, here an area over the middle of the view, and the page's status names it; the camera
/// does not move.
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func livePage_chromiumClick_isATapThatPicksWhatLiesThere() async throws {
    guard FileManager.default.fileExists(atPath: "/usr/bin/chromium") || Fixtures.isCI else { return }
    let state = try camera(zoom: 15, size: (640, 400))
    let view = try MapSession.View(camera: state, features: try sampleCityIndex())
    let corners = [(100.0, 80.0), (540, 80), (540, 320), (100, 320)].compactMap { state.coordinate(at: ScreenPoint(x: $0.0, y: $0.1)) }
    _ = view.add(.polygon(MapPolygonOverlay(try #require(corners.count == 4 ? corners : nil))))
    let recorder = TapRecorder()
    view.delegate = recorder
    let session = MapSession(view: view)
    try await withChromiumPage(session, size: (640, 400)) { _, mouse in
        try await pressUntilTheGestureBegins(session, mouse, 320, 200)
        let before = await session.status()
        try mouse("mouseReleased", 320, 200)
        var status = before
        for _ in 0..<100 where !status.contains("tapped") {
            try await Task.sleep(for: .milliseconds(100))
            status = await session.status()
        }
        #expect(status.contains(#""tapped":["polygon""#), "\(status), taps at \(recorder.taps.map(\.point))")
        #expect(await !session.isGestureActive)
        let camera = { (s: String) in s.split(separator: ",").prefix(5).joined(separator: ",") }
        #expect(camera(status) == camera(before), "a tap does not move the camera")
    }
}
