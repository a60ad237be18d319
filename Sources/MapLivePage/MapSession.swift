import Foundation
public import GeoCore
import MapCamera
public import MapData
public import MapView
public import Positioning
import MapRenderer
import GeoBase

/// One `MapView` driven from the live page: gestures and commands in (JSON text messages),
/// PNG frames out, the live position on its indicator with a track. Every page connected
/// drives and watches the same view. The clock is injected; nothing here reads another.
public actor MapSession {
    public typealias View = MapView<ContinuousClock.Instant>
    let view: View
    let clock: ContinuousClock
    /// The latest frame as PNG and the view's frame count when it was drawn.
    private var latest: (frame: Int, png: [UInt8])?
    /// The live track: the indicator's positions, at most `trackLimit` of them.
    private var track: [Coordinate] = []
    private var trackObject: MapObjectID?
    /// Connections with a gesture under way: a page that disconnects mid-gesture ends it.
    private var gesturing: Set<Int> = []
    /// Where the view's features come from when they come in pieces (a tile archive).
    private let source: (any MapFeatureSource)?
    /// The world region and tile zoom whose features the view holds, from `source`.
    private var loaded: (bounds: WorldRect, zoom: Int)?
    /// The last failure of `source`, shown in the page's status.
    private var sourceError: String?
    /// What the page's last tap picked, top-most first (at most `tapItemsShown`), for the status;
    /// nil before the first tap.
    private var tapped: [String]?
    /// Items of a tap shown in the status.
    static let tapItemsShown = 3

    /// Positions kept in the live track (older ones drop out).
    public static let trackLimit = 10_000

    /// - Parameter source: where the features come from as the view moves (a vector tile
    ///   archive); nil when the view's features are all there is.
    public init(view: sending View, source: sending (any MapFeatureSource)? = nil, clock: ContinuousClock = ContinuousClock()) {
        self.view = view
        self.source = source
        self.clock = clock
    }

    /// Tiles of a source loaded at most at once: a view showing more (the globe far out at a
    /// zoom the archive has tiles for) keeps the features it has.
    public static let maximumSourceTiles = 1_024

    /// Loads the source's features for the region the camera sees, with a view's width and
    /// height of margin round it, when the camera has left the region loaded or changed its
    /// tile zoom (the renderer's, 256-pixel tiles).
    private func loadFeatures() throws {
        guard let source else { return }
        let state = view.camera.state
        let zoom = Int(MapView<ContinuousClock.Instant>.rendererZoom(cameraZoom: state.zoomLevel).rounded(.down))
        let seen = CameraProjection(state).visibleWorldBounds ?? .world
        if let loaded, loaded.zoom == zoom, loaded.bounds.contains(seen) { return }
        var region = seen.expanded(dx: seen.width, dy: seen.height)
        region.minY = max(region.minY, 0)
        region.maxY = min(region.maxY, 1)
        let n = Double(1 << min(zoom, 30))
        guard (region.width * n + 1) * (region.height * n + 1) <= Double(Self.maximumSourceTiles) else { return }
        view.features = MapFeatureIndex(try source.features(in: region, zoom: Double(zoom)))
        loaded = (region, zoom)
    }

    /// The current frame as PNG, drawn now if anything changed (the page's first `<img>`).
    /// A source that fails leaves the features as they were and the error in the status.
    public func png() -> [UInt8] {
        do { try loadFeatures() } catch { sourceError = "\(error)" }
        view.render(at: clock.now)
        if let latest, latest.frame == view.framesDrawn { return latest.png }
        let png = (try? PNG.encode(view.frame ?? view.snapshot())) ?? []
        latest = (view.framesDrawn, png)
        return png
    }

    /// The newest frame when it is newer than `seen` (a frame count), else nil.
    public func frame(after seen: Int) -> (frame: Int, png: [UInt8])? {
        let png = png()
        return view.framesDrawn > seen ? (view.framesDrawn, png) : nil
    }

    /// The camera and position as a JSON object for the page's status line.
    public func status() -> String {
        let s = view.camera.state
        var out = "{\"latitude\":\(s.geoCenter.latitude),\"longitude\":\(s.geoCenter.longitude),\"zoomLevel\":\(s.zoomLevel),"
            + "\"bearing\":\(s.orientation),\"tilt\":\(s.clippedTilt),\"projection\":\"\(s.projection.rawValue)\","
            + "\"follow\":\"\(view.followMode)\",\"frames\":\(view.framesDrawn)"
        if let sourceError { out += ",\"error\":\(JSONText.quoted(sourceError))" }
        if let tapped { out += ",\"tapped\":[\(tapped.map(JSONText.quoted).joined(separator: ","))]" }
        if let l = view.positionIndicator.location {
            out += ",\"position\":{\"latitude\":\(l.coordinate.latitude),\"longitude\":\(l.coordinate.longitude),"
                + "\"accuracy\":\(l.horizontalAccuracy?.meters ?? -1)}"
        }
        return out + "}"
    }

    /// The top-most items of a pick as short labels: a map object's kind, a feature's layer,
    /// class and name ("transportation primary Hauptstraße").
    static func describe(_ picked: MapPickResult) -> [String] {
        let objects = picked.objects.map { picked -> String in
            switch picked.object {
            case .polyline: "polyline"
            case .polygon: "polygon"
            case .circle: "circle"
            case .marker: "marker"
            }
        }
        let features = picked.features.map { f in
            ([f.layer.rawValue] + ["class", "name"].compactMap { f[$0].map(\.description) }).joined(separator: " ")
        }
        return Array((objects + features).prefix(tapItemsShown))
    }

    /// A new fix from the positioning manager: the indicator, the track, the follow mode.
    public func showPosition(raw: Location?, mapMatched: Location?, current: Location?) {
        view.showPosition(raw: raw, mapMatched: mapMatched, current: current, at: clock.now)
        guard let c = view.positionIndicator.location?.coordinate else { return }
        track.append(c)
        if track.count > Self.trackLimit { track.removeFirst(track.count - Self.trackLimit) }
        guard track.count > 1 else { return }
        let line = MapObject.polyline(MapPolyline(track, width: 3, color: Color(hex: 0xD03A8C)))
        if let trackObject { view.replace(trackObject, with: line) } else { trackObject = view.add(line) }
    }

    /// Shows `manager`'s positions: the indicator made visible (which starts positioning), the
    /// camera following, heading updates started (for the indicator's heading), every update
    /// on the indicator and track, until positioning stops or
    /// the calling task is cancelled.
    public func follow(_ manager: PositioningManager) async {
        let events = manager.events()
        view.positionIndicator.startPositioning = { await manager.start() }
        view.positionIndicator.startHeadingUpdates = { await manager.startUpdatingHeading() }
        view.positionIndicator.isVisible = true
        view.followMode = .follow
        await manager.startUpdatingHeading()
        for await event in events {
            switch event {
            case .updated:
                showPosition(raw: await manager.rawPosition, mapMatched: await manager.mapMatchedPosition, current: await manager.currentPosition)
            case .heading(let heading):
                view.showHeading(heading, at: clock.now)
            case .stopped: return
            default: continue
            }
        }
    }

    /// Handles one message from page `connection`; returns an error text for a bad one.
    @discardableResult
    public func handle(_ text: String, connection: Int) -> String? {
        let message: PageMessage
        do { message = try JSONDecoder().decode(PageMessage.self, from: Data(text.utf8)) } catch {
            return "not a page message: \(error)"
        }
        let now = clock.now
        let point = { (x: Double?, y: Double?) -> ScreenPoint? in
            guard let x, let y, x.isFinite, y.isFinite else { return nil }
            return ScreenPoint(x: x, y: y)
        }
        switch message.type {
        case "begin":
            view.camera.beginGesture()
            gesturing.insert(connection)
        case "end":
            endGesture(connection, at: now)
        case "pan":
            guard let from = point(message.x, message.y), let to = point(message.x2, message.y2) else { return "pan needs x, y, x2, y2" }
            applyGesture(.pan(from: from, to: to), connection, now)
        case "zoom":
            guard let about = point(message.x, message.y), let scale = message.scale, scale.isFinite, scale > 0 else { return "zoom needs x, y and a positive scale" }
            applyGesture(.pinch(scale: scale, about: about), connection, now)
        case "rotate":
            guard let degrees = message.degrees, degrees.isFinite else { return "rotate needs degrees" }
            applyGesture(.rotate(degrees: degrees, about: view.camera.state.viewSize.center), connection, now)
        case "tilt":
            guard let degrees = message.degrees, degrees.isFinite else { return "tilt needs degrees" }
            applyGesture(.tilt(degrees: degrees), connection, now)
        case "tap":
            // The view's own tap: its delegate hears of it as of a tap on a native view.
            guard let at = point(message.x, message.y) else { return "tap needs x, y" }
            do { tapped = Self.describe(try view.tap(at: at)) } catch { return error.message }
        case "doubletap":
            guard let at = point(message.x, message.y) else { return "doubletap needs x, y" }
            applyGesture(.doubleTap(at: at), connection, now)
            endGesture(connection, at: now)
        case "fly":
            guard let query = message.query, let target = place(query) else { return "no place '\(message.query ?? "")': give LAT,LON[,ZOOM] or a city name" }
            do { try view.camera.set(CameraOptions(geoCenter: target.coordinate, zoomLevel: target.zoom), animation: .bow, at: now) } catch {
                return error.message
            }
        case "projection":
            guard let value = message.value, let projection = MapProjection(rawValue: value) else { return "projection is mercator or globe" }
            view.camera.setProjection(projection)
        case "layer":
            guard let value = message.value, let category = MapCategory(rawValue: value) else { return "unknown layer category" }
            if message.visible ?? true { view.style.hidden.remove(category) } else { view.style.hidden.insert(category) }
        case "follow":
            view.followMode = switch message.value { case "follow": .follow; case "course": .followWithCourse; default: .none }
        case "active":
            view.isActive = message.visible ?? true
        default:
            return "unknown message type '\(message.type)'"
        }
        return nil
    }

    private func applyGesture(_ gesture: Gesture, _ connection: Int, _ now: ContinuousClock.Instant) {
        if !gesturing.contains(connection) {
            view.camera.beginGesture()
            gesturing.insert(connection)
        }
        view.camera.apply(gesture, at: now)
    }

    private func endGesture(_ connection: Int, at now: ContinuousClock.Instant) {
        guard gesturing.remove(connection) != nil else { return }
        if gesturing.isEmpty { view.camera.endGesture(at: now) }
    }

    /// A page went away: a gesture it had under way ends there.
    public func disconnected(_ connection: Int) {
        endGesture(connection, at: clock.now)
    }

    /// `LAT,LON[,ZOOM]` or a city of the world base.
    private func place(_ query: String) -> (coordinate: Coordinate, zoom: Double?)? {
        let numbers = query.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        if (2...3).contains(numbers.count), numbers.allSatisfy({ $0 != nil }), let lat = numbers[0], let lon = numbers[1],
           let c = try? Coordinate(latitude: lat, longitude: lon) {
            let zoom = numbers.count == 3 ? numbers[2] : nil
            return (c, zoom.map { min(max($0, 0), 22) })
        }
        return view.worldBase.city(named: query.trimmingCharacters(in: .whitespaces)).map { ($0.coordinate, 11) }
    }
}

/// A message from the page: `type` and the fields that type uses.
struct PageMessage: Decodable {
    var type: String
    var x: Double?, y: Double?, x2: Double?, y2: Double?
    var scale: Double?, degrees: Double?
    var query: String?, value: String?, visible: Bool?
}

extension MapSession {
    /// Whether a gesture is under way on the view's camera.
    var isGestureActive: Bool { view.camera.isGestureActive }
}
