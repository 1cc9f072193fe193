//! Which network addresses a `SERVICE` call may reach: public unicast addresses only.
//!
//! A name is resolved once, here; every address it resolves to must be public, and the HTTP
//! client is then pinned to those addresses, so that a name that resolves to a public address
//! when checked and to 127.0.0.1 when connecting (DNS rebinding) cannot reach the inside.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};

/// Whether an address is a public unicast address (not loopback, private, link-local,
/// unspecified, shared, multicast, broadcast, documentation or reserved, nor an IPv6 form
/// that embeds such an IPv4 address).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        // Shared address space (carrier-grade NAT), 100.64.0.0/10.
        || (a == 100 && (64..128).contains(&b))
        // IETF protocol assignments, 192.0.0.0/24.
        || (a == 192 && b == 0 && c == 0)
        // Benchmarking, 198.18.0.0/15.
        || (a == 198 && (b == 18 || b == 19))
        // Reserved, 240.0.0.0/4.
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_v4(ip) {
        return is_public_v4(v4);
    }
    let first = ip.segments()[0];
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        // Unique local, fc00::/7.
        || (first & 0xfe00) == 0xfc00
        // Link-local, fe80::/10, and the deprecated site-local fec0::/10.
        || (first & 0xffc0) == 0xfe80
        || (first & 0xffc0) == 0xfec0
        // Documentation, 2001:db8::/32.
        || (first == 0x2001 && ip.segments()[1] == 0x0db8))
}

/// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`),
/// NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`) address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let o = ip.octets();
    let tail = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    match ip.segments() {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(tail),
        [0, 0, 0, 0, 0, 0, _, _] if !ip.is_loopback() && !ip.is_unspecified() => Some(tail),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(tail),
        [0x2002, ..] => Some(Ipv4Addr::new(o[2], o[3], o[4], o[5])),
        _ => None,
    }
}

/// Resolves `host:port` and checks every address; `Err` says which address was refused.
///
/// With `allow_private`, any address is accepted (only tests turn this on, to call a second
/// server on 127.0.0.1).
pub fn resolve(host: &str, port: u16, allow_private: bool) -> Result<Vec<SocketAddr>, String> {
    // An IP literal in a URL may be bracketed (IPv6).
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addresses: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => (bare, port)
            .to_socket_addrs()
            .map_err(|e| format!("{host} cannot be resolved: {e}"))?
            .collect(),
    };
    if addresses.is_empty() {
        return Err(format!("{host} has no address"));
    }
    if !allow_private {
        if let Some(refused) = addresses.iter().find(|a| !is_public(a.ip())) {
            return Err(format!(
                "{host} resolves to {}, a loopback, private, link-local or otherwise non-public address",
                refused.ip()
            ));
        }
    }
    Ok(addresses)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "127.1.2.3",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
        ] {
            let ip: IpAddr = ip.parse().expect("an address");
            assert!(!is_public(ip), "{ip} counted as public");
        }
        for ip in [
            "8.8.8.8",
            "208.80.154.224",
            "2620:0:861:ed1a::1",
            "::ffff:8.8.4.4",
        ] {
            let ip: IpAddr = ip.parse().expect("an address");
            assert!(is_public(ip), "{ip} counted as non-public");
        }
    }

    #[test]
    fn names_resolving_inside_are_refused_unless_allowed() {
        let refused = resolve("localhost", 80, false).expect_err("localhost is loopback");
        assert!(refused.contains("localhost resolves to"), "{refused}");
        assert!(resolve("[::1]", 80, false).is_err());
        assert!(resolve("127.0.0.1", 80, false).is_err());
        let allowed = resolve("127.0.0.1", 8080, true).expect("allowed for tests");
        assert_eq!(allowed, vec![SocketAddr::from(([127, 0, 0, 1], 8080))]);
    }
}
