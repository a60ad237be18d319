import Platform
public import GeoBase

/// Owns a camera and moves it: the combined setter with an animation, gestures and their
/// inertia, frames on an injected clock, and the seed's event blocks (maplibre-native's
/// `Transform` around a ``CameraState``).
///
/// Time is whatever clock the caller uses: every call that starts or moves something takes
/// `now`, and ``advance(to:)`` computes the frame for that instant; nothing here reads a clock.
///
/// Event order follows the seed: from rest, an animation reports `transformationBegan`,
/// `animationBegan`; a gesture during it reports `animationEnded`, `gestureBegan`; the end of
/// the gesture reports `gestureEnded`, then — once its inertia, if any, has stopped —
/// `transformationEnded`. A change reports `geoCenterChanged`, `zoomLevelChanged`,
/// `orientationChanged`, `tiltChanged` for what changed, in that order.
///
/// Blocks run on the caller's thread, one event at a time: an event raised inside a block (a
/// block that moves the camera) is queued and delivered after the current one has reached
/// every block. Registering or removing blocks inside a block is safe: a block added there
/// hears the events delivered after the current one; a block removed there hears nothing more.
public final class CameraController<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// A block the controller calls for an event; it returns whether it stays registered for
    /// that event (`false` unregisters it for that event only, as in the seed).
    public typealias EventBlock = (MapEvents, CameraController) -> Bool

    /// The camera now.
    public private(set) var state: CameraState
    /// The move under way, with its start instant.
    public private(set) var transition: (move: CameraTransition, start: Instant)?
    /// Whether a gesture is under way (between its first change and ``endGesture(velocityX:velocityY:at:)``).
    public private(set) var isGestureActive = false
    /// Whether the camera is between `transformationBegan` and `transformationEnded`.
    public private(set) var isTransforming = false

    private var inertia: (pan: PanInertia?, zoomRotate: ZoomRotateInertia?, start: Instant, from: CameraState)?
    /// The gesture's recent steps: when, how far in pixels, zoom levels and degrees turned,
    /// and about which point the last zoom or turn was.
    private var steps: [(time: Instant, dx: Double, dy: Double, zoom: Double, degrees: Double, about: ScreenPoint?)] = []
    /// A registered block and the events it still responds to.
    private struct Registration {
        let id: MapEventBlockID
        var events: MapEvents
        let block: EventBlock
    }

    private var blocks: [Registration] = []
    private var nextBlockID = 0
    private var pending: [MapEvents] = []
    private var delivering = false

    public init(state: CameraState) { self.state = state }

    /// Whether an animation is under way.
    public var isAnimating: Bool { transition != nil }

    // MARK: Event blocks

    /// Registers `block` for `events` (the seed's `respondToEvents:withBlock:`).
    /// - Returns: the identifier to remove it with.
    @discardableResult
    public func respond(to events: MapEvents, block: @escaping EventBlock) -> MapEventBlockID {
        let id = MapEventBlockID(value: nextBlockID)
        nextBlockID += 1
        if !events.isEmpty { blocks.append(Registration(id: id, events: events, block: block)) }
        return id
    }

    /// Unregisters a block for all its events (the seed's `removeEventBlockWithIdentifier:`).
    /// - Returns: whether it was registered.
    @discardableResult
    public func removeEventBlock(_ id: MapEventBlockID) -> Bool {
        guard let i = blocks.firstIndex(where: { $0.id == id }) else { return false }
        blocks.remove(at: i)
        return true
    }

    /// Delivers `event` to every block registered for it, or queues it while a block runs.
    private func emit(_ event: MapEvents) {
        pending.append(event)
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        var next = 0
        while next < pending.count {
            let e = pending[next]
            next += 1
            var ids: [MapEventBlockID] = []
            for entry in blocks where entry.events.contains(e) { ids.append(entry.id) }
            for id in ids {
                // Looked up again: an earlier block may have removed this one.
                guard let i = blocks.firstIndex(where: { $0.id == id }), blocks[i].events.contains(e) else { continue }
                if !blocks[i].block(e, self), let j = blocks.firstIndex(where: { $0.id == id }) {
                    blocks[j].events.remove(e)
                    if blocks[j].events.isEmpty { blocks.remove(at: j) }
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    // MARK: Moves

    /// The seed's combined setter: moves to `options` (nil fields keep their value) with one
    /// animation. An animation under way ends first (`animationEnded`); a gesture under way is
    /// ended (`gestureEnded`), its inertia dropped. With `.none` the camera jumps now.
    /// - Parameters:
    ///   - duration: nil for the animation's own (see ``CameraTransition``).
    ///   - now: the instant the move starts.
    /// - Throws: `MapCameraError` for non-finite options or a bad duration; nothing changes then.
    public func set(_ options: CameraOptions, animation: MapAnimation, duration: Duration? = nil, at now: Instant) throws(MapCameraError) {
        let move = try CameraTransition(from: state, to: state.setting(options), animation: animation, duration: duration)
        stopAnimation()
        if isGestureActive {
            isGestureActive = false
            emit(.gestureEnded)
        }
        inertia = nil
        beginTransformation()
        if move.duration == .zero {
            update(to: move.destination)
            endTransformationIfIdle()
        } else {
            transition = (move, now)
            emit(.animationBegan)
        }
    }

    /// Switches how the Earth is drawn (the seed's `projectionType`). An animation or glide
    /// under way ends first (`animationEnded`), since its frames were computed in the old one.
    public func setProjection(_ projection: MapProjection) {
        guard projection != state.projection else { return }
        stopAnimation()
        inertia = nil
        state.projection = projection
        endTransformationIfIdle()
    }

    /// Changes the view's size (pixels), keeping the centre, zoom, orientation and tilt. An
    /// animation or glide under way ends (`animationEnded`): its frames were computed for the
    /// old size.
    public func resize(to size: ViewSize) {
        guard size != state.viewSize else { return }
        stopAnimation()
        inertia = nil
        state = state.resized(to: size)
        endTransformationIfIdle()
    }

    /// Computes the camera at `now`: the animation's or the inertia's frame, with its change
    /// events, and the end events when it has finished. Instants before a move's start count
    /// as its start.
    public func advance(to now: Instant) {
        if let (move, start) = transition {
            let elapsed = start.duration(to: now)
            update(to: move.state(atElapsed: max(elapsed, .zero)))
            if elapsed >= move.duration {
                transition = nil
                emit(.animationEnded)
                endTransformationIfIdle()
            }
        }
        if let (pan, zoomRotate, start, from) = inertia {
            let t = max(start.duration(to: now) / .seconds(1), 0)
            var next = from
            if let pan { next = next.applying(pan.pan(after: t, viewCenter: from.viewSize.center)) }
            if let zoomRotate { next = zoomRotate.apply(to: next, after: t) }
            update(to: next)
            if t >= max(pan?.duration ?? 0, zoomRotate?.duration ?? 0) {
                inertia = nil
                endTransformationIfIdle()
            }
        }
    }

    // MARK: Gestures

    /// Starts a gesture: ends an animation under way (`animationEnded`, then `gestureBegan`),
    /// stops a glide. Does nothing while a gesture is already under way.
    public func beginGesture() {
        guard !isGestureActive else { return }
        stopAnimation()
        inertia = nil
        steps.removeAll()
        beginTransformation()
        isGestureActive = true
        emit(.gestureBegan)
    }

    /// Applies one step of a gesture made at `now`, beginning a gesture first if none is under
    /// way. Pan, pinch and rotate steps are remembered for the release velocity.
    public func apply(_ gesture: Gesture, at now: Instant) {
        beginGesture()
        switch gesture {
        case let .pan(from, to): steps.append((now, to.x - from.x, to.y - from.y, 0, 0, nil))
        case let .pinch(scale, about) where scale.isFinite && scale > 0: steps.append((now, 0, 0, log2(scale), 0, about))
        case let .rotate(degrees, about) where degrees.isFinite: steps.append((now, 0, 0, 0, degrees, about))
        default: break
        }
        steps.removeAll { $0.time.duration(to: now) > Self.velocityWindow }
        update(to: state.applying(gesture))
    }

    /// How far back pan steps count towards the release velocity: MapLibre's 160 ms.
    public static var velocityWindow: Duration { .milliseconds(160) }

    /// Ends the gesture at `now` (`gestureEnded`). The view glides on (``PanInertia``,
    /// ``ZoomRotateInertia``, frames from ``advance(to:)``) when the fingers were still moving:
    /// at the pan velocity given in pixels per second, or else at the velocity of the steps
    /// made in the last 160 ms (the movement after the first of them over the time from the
    /// first to the last, as MapLibre's inertia) — pan, zoom and turn alike.
    /// `transformationEnded` follows when the glide stops, or now when there is none.
    public func endGesture(velocityX: Double? = nil, velocityY: Double? = nil, at now: Instant) {
        guard isGestureActive else { return }
        isGestureActive = false
        emit(.gestureEnded)
        var velocity = (x: velocityX ?? 0, y: velocityY ?? 0)
        var zoomRotate: ZoomRotateInertia?
        let recent = steps.filter { $0.time.duration(to: now) <= Self.velocityWindow }
        if let first = recent.first, let last = recent.last {
            let seconds = first.time.duration(to: last.time) / .seconds(1)
            if seconds > 0 {
                let moves = recent.filter { first.time < $0.time } // what moved after the first instant
                if velocityX == nil, velocityY == nil {
                    velocity = (moves.reduce(0) { $0 + $1.dx } / seconds, moves.reduce(0) { $0 + $1.dy } / seconds)
                }
                if let about = recent.last(where: { $0.about != nil })?.about {
                    zoomRotate = ZoomRotateInertia(zoomSpeed: moves.reduce(0) { $0 + $1.zoom } / seconds,
                                                   rotationSpeed: moves.reduce(0) { $0 + $1.degrees } / seconds, about: about)
                }
            }
        }
        steps.removeAll()
        let pan = PanInertia(velocityX: velocity.x, velocityY: velocity.y)
        if pan != nil || zoomRotate != nil {
            inertia = (pan, zoomRotate, now, state)
        } else {
            endTransformationIfIdle()
        }
    }

    // MARK: Helpers

    private func stopAnimation() {
        guard transition != nil else { return }
        transition = nil
        emit(.animationEnded)
    }

    private func beginTransformation() {
        guard !isTransforming else { return }
        isTransforming = true
        emit(.transformationBegan)
    }

    private func endTransformationIfIdle() {
        guard isTransforming, transition == nil, inertia == nil, !isGestureActive else { return }
        isTransforming = false
        emit(.transformationEnded)
    }

    /// Replaces the camera and reports what changed.
    private func update(to new: CameraState) {
        let old = state
        state = new
        if new.geoCenter != old.geoCenter { emit(.geoCenterChanged) }
        if new.zoomLevel != old.zoomLevel { emit(.zoomLevelChanged) }
        if new.orientation != old.orientation { emit(.orientationChanged) }
        if new.tilt != old.tilt || new.clippedTilt != old.clippedTilt { emit(.tiltChanged) }
    }
}
