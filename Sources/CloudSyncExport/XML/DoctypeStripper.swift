#if canImport(Glibc)
public import CloudSyncModel
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the internal DTD subset (`<!DOCTYPE HealthData [ … ]>`) from the byte stream before
/// libxml2 sees it.
///
/// Why: the iOS 16 exports carry a broken DTD (an ATTLIST without its `>`, or a stray `>`), which
/// libxml2 rightly refuses, and nothing in the DTD is needed to read the data. Removing it also means
/// no entity declared there can ever be expanded and no external DTD can ever be fetched.
///
/// Rule: everything from `<!DOCTYPE` up to the root start tag `<HealthData` is dropped, except its
/// line breaks, so that line numbers in error messages still match the file. Before the DOCTYPE,
/// processing instructions and comments are skipped whole, as libxml2 reads them: markup inside one
/// (`<?pi <Record ?>`) must not look like the root, or a DOCTYPE after it would reach libxml2 (the
/// fuzzer found that). The rule holds whatever
/// the DTD's defects, and wherever the chunk boundaries fall (markers split across chunks are held
/// back until the next chunk).
public struct DoctypeStripper {
    public enum State: Sendable { case prolog, doctype, body }

    public private(set) var state: State = .prolog
    /// True when the input had a DOCTYPE.
    public private(set) var sawDoctype = false
    /// Bytes removed.
    public private(set) var removedByteCount = 0
    /// The removed DTD text (first `keptDoctypeLimit` bytes): export version and defects are read from it.
    public private(set) var doctypeText: [UInt8] = []

    static let keptDoctypeLimit = 1 << 20
    private static let doctypeMarker: StaticString = "<!DOCTYPE"
    /// The root start tag that ends the DTD: `<HealthData` for export.xml, `<gpx` for routes.
    private let rootMarker: StaticString

    private var pending: [UInt8] = []
    /// Inside a processing instruction or a comment of the prolog: the bytes that end it.
    private var prologTerminator: StaticString?
    private static let commentStart: StaticString = "<!--"

    public init(rootMarker: StaticString = "<HealthData") {
        self.rootMarker = rootMarker
    }

    /// Feeds the next chunk; `emit` receives the bytes to parse, in order.
    public mutating func process(_ input: ByteText, emit: (ByteText) throws -> Void) rethrows {
        if state == .body {
            try emit(input)
            return
        }
        pending.append(contentsOf: input)
        try drainPending(final: false, emit: emit)
    }

    /// Ends the stream: flushes what was held back.
    public mutating func finish(emit: (ByteText) throws -> Void) rethrows {
        guard state != .body else { return }
        try drainPending(final: true, emit: emit)
    }

    private mutating func drainPending(final: Bool, emit: (ByteText) throws -> Void) rethrows {
        while state != .body {
            let progressed: Bool
            switch state {
            case .prolog: progressed = try scanProlog(final: final, emit: emit)
            case .doctype: progressed = try scanDoctype(final: final, emit: emit)
            case .body: progressed = true
            }
            if !progressed { return }
        }
        // Now in the body: what is left passes through untouched.
        let rest = pending
        pending = []
        try rest.withUnsafeBufferPointer { try emit($0) }
    }

    /// Before any DOCTYPE or element. Returns true when the state changed.
    private mutating func scanProlog(final: Bool, emit: (ByteText) throws -> Void) rethrows -> Bool {
        let marker = Self.doctypeMarker
        var i = 0
        while i < pending.count {
            if let terminator = prologTerminator {
                let n = terminator.utf8CodeUnitCount
                guard let end = firstMatch(terminator, from: i) else {
                    i = Swift.max(i, pending.count - (n - 1))  // keep what may be a split terminator
                    break
                }
                prologTerminator = nil
                i = end + n
                continue
            }
            if pending[i] == UInt8(ascii: "<") {
                guard i + 1 < pending.count else { break }
                let next = pending[i + 1]
                if next == UInt8(ascii: "?") {
                    prologTerminator = "?>"
                    i += 2
                    continue
                }
                if next == UInt8(ascii: "!") {
                    let available = pending.count - i
                    if available < marker.utf8CodeUnitCount && !final { break }  // maybe a split marker
                    if matches(Self.commentStart, at: i) {
                        prologTerminator = "-->"
                        i += 4
                        continue
                    }
                    if matches(marker, at: i) {
                        try emitPrefix(i, emit: emit)
                        state = .doctype
                        sawDoctype = true
                        return true
                    }
                } else {
                    state = .body  // an element (the root) before any DOCTYPE
                    return true
                }
            }
            i += 1
        }
        if final {
            state = .body
            return true
        }
        try emitPrefix(i, emit: emit)
        return false
    }

    /// Inside the DOCTYPE: drop bytes until the root start tag.
    private mutating func scanDoctype(final: Bool, emit: (ByteText) throws -> Void) rethrows -> Bool {
        let marker = rootMarker
        let markerCount = marker.utf8CodeUnitCount
        var i = 0
        while i < pending.count {
            if pending[i] == UInt8(ascii: "<") {
                let available = pending.count - i
                if available <= markerCount && !final { break }  // need the marker and the byte after it
                if available > markerCount, matches(marker, at: i), isNameEnd(pending[i + markerCount]) {
                    try drop(i, emit: emit)
                    state = .body
                    return true
                }
            }
            i += 1
        }
        if final {
            // No root element after the DOCTYPE: everything is dropped, the parser reports an empty document.
            try drop(pending.count, emit: emit)
            state = .body
            return true
        }
        try drop(i, emit: emit)
        return false
    }

    private func matches(_ literal: StaticString, at i: Int) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard i + n <= pending.count else { return false }
        return pending.withUnsafeBufferPointer { memcmp($0.baseAddress! + i, literal.utf8Start, n) == 0 }
    }

    /// The first position at or after `start` where `literal` begins.
    private func firstMatch(_ literal: StaticString, from start: Int) -> Int? {
        let n = literal.utf8CodeUnitCount
        var i = start
        while i + n <= pending.count {
            if pending[i] == literal.utf8Start[0], matches(literal, at: i) { return i }
            i += 1
        }
        return nil
    }

    private func isNameEnd(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
    }

    private mutating func emitPrefix(_ n: Int, emit: (ByteText) throws -> Void) rethrows {
        guard n > 0 else { return }
        try pending.withUnsafeBufferPointer { try emit(ByteText(rebasing: $0[..<n])) }
        pending.removeFirst(n)
    }

    /// Drops the first `n` pending bytes, emitting only their line breaks.
    private mutating func drop(_ n: Int, emit: (ByteText) throws -> Void) rethrows {
        guard n > 0 else { return }
        let room = Self.keptDoctypeLimit - doctypeText.count
        if room > 0 { doctypeText.append(contentsOf: pending[..<Swift.min(n, room)]) }
        removedByteCount += n
        var newlines = 0
        for i in 0..<n where pending[i] == 0x0A { newlines += 1 }
        pending.removeFirst(n)
        let lineBreaks = [UInt8](repeating: 0x0A, count: newlines)
        try lineBreaks.withUnsafeBufferPointer { try emit($0) }
    }
}
