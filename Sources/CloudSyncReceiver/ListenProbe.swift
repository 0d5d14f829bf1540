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
    package static func check(host: String, port: Int) throws {
        guard port != 0 else { return }   // the system picks a free one
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, String(port), &hints, &found) == 0, let first = found else {
            throw ReceiverError.cannotListen(host: host, port: port, errno: EADDRNOTAVAIL)
        }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return }   // no socket to probe with: the server's bind will say
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 {
            throw ReceiverError.cannotListen(host: host, port: port, errno: errno)
        }
    }
}
