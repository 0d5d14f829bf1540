import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Checks, before serve makes any file, that it will be able to listen: a port another program
/// holds, a port below 1024 without privileges or an address of another machine is said before a
/// new database, store or WAL file is left behind by a start that then fails.
///
/// The probe binds a socket as the server will (SO_REUSEADDR: a port left in TIME_WAIT by a serve
/// just stopped is free) and closes it. A program that takes the port in the moment between is
/// still caught by the server's own bind, as before.
package enum ListenProbe {
    /// The address without the brackets a URL puts around IPv6 (`[::1]` → `::1`), as a socket wants it.
    package static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    package static func check(host: String, port: Int) throws {
        guard port != 0 else { return }   // the system picks a free one
        let name = bare(host)
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, String(port), &hints, &found) == 0, let first = found else {
            throw ReceiverError.cannotListen(host: host, port: port, errno: EADDRNOTAVAIL)
        }
        defer { freeaddrinfo(found) }
        // A name may give several addresses (`localhost`: 127.0.0.1 and ::1, on a machine that may
        // have no IPv6): it can be listened on when one of them can be bound. A port in use is what
        // is said first, since it is what the user can change.
        var failures: [Int32] = []
        var address: UnsafeMutablePointer<addrinfo>? = first
        while let current = address {
            address = current.pointee.ai_next
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype, current.pointee.ai_protocol)
            guard fd >= 0 else { return }   // no socket to probe with: the server's bind will say
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            let bound = bind(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0
            if !bound { failures.append(errno) }
            close(fd)
            if bound { return }
        }
        if let reason = failures.first(where: { $0 == EADDRINUSE }) ?? failures.first {
            throw ReceiverError.cannotListen(host: host, port: port, errno: reason)
        }
    }
}
