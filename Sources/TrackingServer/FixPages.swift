/// A device's fixes between two times, read from a store a page at a time in fix-time order:
/// together the pages are what `PositionStore.positions(device:from:to:limit:)` gives for the
/// whole range, but no more than a page is held at once. Each page is a read of its own that
/// begins at the fix time where the last one ended (keyset paging); the fixes at a full page's
/// last fix time are left to the next read, which begins at that time, so two payloads at one
/// time are neither given twice nor skipped across a page's end.
///
/// A read after a full page ends at twice the time span that page covered, not at the range's
/// end, so it costs the rows of about two pages whatever plan the database picks: on a
/// PostgreSQL partition not yet analysed, the planner sorted all the range's rest for each
/// page (a device-day in pages of 8,192: 236 ms, bounded so 128 ms, read whole 99–122 ms;
/// EXPLAIN ANALYZE showed the sorts).
/// A window that comes back short is followed by a read to the range's end again.
///
/// The read API sends a raw track (a device-day: 86,400 fixes) so, in pages of the store's
/// `readPageSize`. Read whole, 20 device-day reads raised the server's peak RSS by 46 MB on
/// PostgreSQL and 56 MB on SQLite (with 8,192-fix pages: 5 and 6 MB), and under 19,800 devices
/// its spread on PostgreSQL from 2.4 to 9.9 % (issue 35 asks it flat within 5 %).
public struct FixPages: Sendable {
    let store: any PositionStore
    let device: String
    let to: Int64
    /// The page size asked for; after `giveBack`, pages start smaller and grow back to it.
    let maximumSize: Int
    /// The size of the next page.
    private var size: Int
    /// Fixes given since the last `giveBack` (or the start).
    private var given = 0
    /// Where the next read begins (milliseconds since 1970, included).
    private var from: Int64
    /// How far past `from` the next read goes (milliseconds); nil: to `to`.
    private var span: Int64?
    /// The fixes still to give, of the read's limit.
    private var left: Int
    private var finished = false

    /// The fixes of `device` with `from <= fixTime < to` (milliseconds), at most `limit` of
    /// them, in pages of at most `size` (more only when more than `size` share a fix time).
    public init(store: any PositionStore, device: String, from: Int64, to: Int64, limit: Int, size: Int) {
        precondition(size > 0, "a page holds at least one fix")
        self.store = store
        self.device = device
        self.from = from
        self.to = to
        self.left = limit
        self.maximumSize = size
        self.size = size
    }

    /// Takes back `unsent`, the last fixes given (in parts, in order: a page's rest and a page
    /// read after it), beginning at a fix time none of the fixes given before it has: the next
    /// read begins at that time again. The read API so lets go of a page its client is not
    /// taking while it waits (a device-day's reply held a page of 32,768 fixes, SQLite's then,
    /// 10 MB with its pieces, for each client that read none of it). Pages are then twice the
    /// fixes given since the last `giveBack` (at least 256) and double with each page up to the
    /// size asked for: a client that takes a little at a time is read for in about its own
    /// steps, not a whole page again for each.
    public mutating func giveBack(_ unsent: ArraySlice<StoredFix>...) {
        let count = unsent.reduce(0) { $0 + $1.count }
        given -= count
        size = min(maximumSize, max(256, given > maximumSize / 2 ? maximumSize : 2 * given))
        given = 0
        guard let first = unsent.lazy.compactMap(\.first).first else { return }
        from = first.fixTime
        left += count
        finished = false
    }

    /// Whether every page has been given: `next()` would return nil without a read. (False
    /// does not promise another page: the range's rest may hold none.)
    public var isFinished: Bool { finished || left <= 0 || from >= to }

    /// The next page, in fix-time order; nil after the last. Throws what the store throws,
    /// and the next call reads that page again.
    public mutating func next() async throws -> [StoredFix]? {
        let page = try await read()
        given += page?.count ?? 0
        size = size > maximumSize / 2 ? maximumSize : 2 * size
        return page
    }

    private mutating func read() async throws -> [StoredFix]? {
        while !finished, left > 0, from < to {
            let want = min(size, left)
            var end = to
            if let span {
                let (sum, overflow) = from.addingReportingOverflow(span)
                if !overflow, sum < to { end = sum }
            }
            var fixes = try await store.positions(device: device, from: from, to: end, limit: want)
            if fixes.count < want {
                left -= fixes.count
                if end == to {
                    finished = true
                } else {
                    // Sparser than the last page: on to the range's end.
                    from = end
                    span = nil
                }
                if fixes.isEmpty { continue }
                return fixes
            }
            if want == left {
                finished = true
                left = 0
                return fixes
            }
            let first = fixes[0].fixTime, last = fixes[fixes.count - 1].fixTime
            if let kept = fixes.lastIndex(where: { $0.fixTime < last }) {
                fixes.removeSubrange((kept + 1)...)
                from = last
                let (twice, overflow) = (last - first).multipliedReportingOverflow(by: 2)
                span = overflow ? nil : twice
            } else {
                // A page of one fix time: all of that time's fixes (up to the limit) in one
                // read. `last < to`, so `last + 1` does not overflow.
                fixes = try await store.positions(device: device, from: last, to: last + 1, limit: left)
                from = last + 1
            }
            left -= fixes.count
            return fixes
        }
        return nil
    }
}
