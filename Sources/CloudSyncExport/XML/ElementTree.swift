#if canImport(Glibc)
public import CloudSyncModel
import Glibc
#endif

/// One top-level element of the export (a `Record`, a `Workout`, …) with all its descendants,
/// copied out of libxml2's buffers while it streams past. Reused for every element, so the hot path
/// does not allocate; its views are valid until the parser starts the next top-level element.
public final class ElementTree {
    public struct Node: Sendable {
        public var name: ElementName
        /// Index of the parent node, -1 for the top-level element.
        public var parent: Int32
        var firstAttribute: Int32
        var attributeCount: Int32
        /// Line in the input where the element starts.
        public var line: Int32
    }

    struct Attribute {
        var name: AttributeName
        /// The name as libxml2 interned it (NUL-terminated): valid while the parser lives, which
        /// is always longer than a consumer call. Not copied: that was a `strlen` and a copy per
        /// attribute on the parser thread, the critical path.
        var interned: UnsafePointer<UInt8>
        var valueStart: Int32
        var valueCount: Int32
    }

    /// Largest element accepted: a real Workout with inline GPS points stays under a few MB.
    public static let maximumBytes = 64 << 20
    /// A tree that held an element larger than this gives the memory back when it is reused, so
    /// that one huge element does not stay resident in each of the hundreds of circulating trees.
    static let retainedBytes = 1 << 20
    static let retainedNodes = 1 << 14

    public internal(set) var nodes: [Node] = []
    @exclusivity(unchecked) var attributes: [Attribute] = []
    @exclusivity(unchecked) var arena = ByteBuffer(capacity: 2048)
    /// Names of elements outside the DTD, by node index (rare).
    @exclusivity(unchecked) var unknownNames: [Int: String] = [:]

    /// Starts small: hundreds of trees circulate between the parser and the mapping thread, and
    /// each grows to the largest element it held.
    init() {
        nodes.reserveCapacity(8)
        attributes.reserveCapacity(32)
    }

    func removeAll() {
        nodes.removeAll(keepingCapacity: nodes.capacity <= Self.retainedNodes)
        attributes.removeAll(keepingCapacity: attributes.capacity <= Self.retainedNodes * 4)
        arena.removeAll(shrinkingAbove: Self.retainedBytes, to: 2048)
        if !unknownNames.isEmpty { unknownNames.removeAll() }
    }

    /// Stores an attribute value. With entity substitution off (as it must stay, see `ExportParser`),
    /// libxml2 hands `&amp;` over as the character reference `&#38;`, and a literal `&#38;` in the
    /// file would itself arrive as `&#38;#38;`; so every `&#38;` here means `&`. Values with an `&`
    /// are rare (URLs in metadata), so the common path is one `memchr`.
    func storeAttributeValue(_ bytes: ByteText) -> (start: Int32, count: Int32) {
        let start = Int32(arena.count)
        guard bytes.count > 0, memchr(bytes.baseAddress!, 0x26, bytes.count) != nil else {
            arena.append(bytes)
            return (start, Int32(bytes.count))
        }
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x26, i + 5 <= bytes.count, bytes.slice(i..<(i + 5)).equals("&#38;") {
                arena.append(0x26)
                i += 5
            } else {
                arena.append(bytes[i])
                i += 1
            }
        }
        return (start, Int32(arena.count) - start)
    }

    var byteCount: Int { arena.count }

    /// The memory this element takes: its attribute bytes plus its node and attribute records.
    var footprint: Int {
        arena.count + nodes.count * MemoryLayout<Node>.stride + attributes.count * MemoryLayout<Attribute>.stride
    }

    // MARK: Reading

    public var root: Int { 0 }

    public func name(_ node: Int) -> ElementName { nodes[node].name }

    /// The value of attribute `name` on `node`, if present.
    @inline(__always)
    public func value(_ name: AttributeName, of node: Int = 0) -> ByteText? {
        let n = nodes[node]
        var i = Int(n.firstAttribute)
        let end = i + Int(n.attributeCount)
        while i < end {
            let attribute = attributes[i]
            if attribute.name == name {
                return arena.bytes(Int(attribute.valueStart)..<Int(attribute.valueStart + attribute.valueCount))
            }
            i += 1
        }
        return nil
    }

    /// Every attribute of `node` as (name, value) views, in document order.
    public func attributes(of node: Int) -> [(name: ByteText, value: ByteText)] {
        let n = nodes[node]
        return (Int(n.firstAttribute)..<Int(n.firstAttribute + n.attributeCount)).map { i in
            let a = attributes[i]
            return (ByteText(start: a.interned, count: strlen(a.interned)),
                    arena.bytes(Int(a.valueStart)..<Int(a.valueStart + a.valueCount)))
        }
    }

    /// Calls `body` with each attribute of `node` that the mapping does not read (`.other`), by its
    /// name as libxml2 gave it. Without allocating: today's exports have none, iOS 8's have metadata.
    @inline(__always)
    public func forEachOtherAttribute(of node: Int, _ body: (_ name: ByteText, _ value: ByteText) -> Void) {
        let n = nodes[node]
        var i = Int(n.firstAttribute)
        let end = i + Int(n.attributeCount)
        while i < end {
            let a = attributes[i]
            if a.name == .other {
                body(ByteText(start: a.interned, count: strlen(a.interned)),
                     arena.bytes(Int(a.valueStart)..<Int(a.valueStart + a.valueCount)))
            }
            i += 1
        }
    }

    /// Indices of the direct children of `node`, in document order.
    public func children(of node: Int) -> [Int] {
        var result: [Int] = []
        var i = node + 1
        while i < nodes.count {
            if nodes[i].parent == Int32(node) { result.append(i) }
            i += 1
        }
        return result
    }

    /// Calls `body` with each direct child of `node` named `name`, without allocating.
    @inline(__always)
    public func forEachChild(of node: Int, named name: ElementName, _ body: (Int) throws -> Void) rethrows {
        var i = node + 1
        while i < nodes.count {
            if nodes[i].parent == Int32(node), nodes[i].name == name { try body(i) }
            i += 1
        }
    }
}

extension ElementTree {
    func appendNode(_ node: Node) { nodes.append(node) }
}

extension ElementTree {
    /// The element name as written (for elements outside the DTD).
    func nodeName(_ node: Int) -> String {
        let name = nodes[node].name
        return name == .unknown ? (unknownNames[node] ?? "?") : name.xmlName
    }
}
