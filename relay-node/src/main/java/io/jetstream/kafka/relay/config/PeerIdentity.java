package io.jetstream.kafka.relay.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;

/**
 * One certificate identity a relay accepts for a role of a stream
 * ({@code streams.<id>.<role>.identities}): a common name of the certificate's subject
 * ({@code cn:source-a}, compared exactly), or one of its subject alternative names:
 * {@code dns:source-a.example.com} (case-insensitive), {@code uri:spiffe://example.com/jetstream/source},
 * {@code ip:10.0.0.7}. Only the leaf certificate of a chain the TLS handshake verified is looked at.
 * No wildcards: an identity names one peer (or one workload, with a SPIFFE-style URI).
 */
public final class PeerIdentity {

    /** What part of the certificate an identity names. */
    public enum Kind { CN, DNS, URI, IP }

    // X509Certificate.getSubjectAlternativeNames() general-name types (RFC 5280)
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;
    private static final int SAN_IP = 7;

    private final Kind kind;
    private final String text;
    private final InetAddress ip;

    private PeerIdentity(Kind kind, String text, InetAddress ip) {
        this.kind = kind;
        this.text = text;
        this.ip = ip;
    }

    /**
     * Parses one entry.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static PeerIdentity parse(String entry) {
        Objects.requireNonNull(entry, "entry");
        String trimmed = entry.trim();
        int colon = trimmed.indexOf(':');
        String prefix = colon > 0 ? trimmed.substring(0, colon).toLowerCase(Locale.ROOT) : "";
        String rest = colon > 0 ? trimmed.substring(colon + 1).trim() : "";
        switch (prefix) {
            case "cn" -> {
                if (rest.isEmpty()) {
                    throw new IllegalArgumentException("'" + entry + "': cn: needs the subject's common name");
                }
                return new PeerIdentity(Kind.CN, rest, null);
            }
            case "dns" -> {
                if (rest.isEmpty() || rest.chars().anyMatch(Character::isWhitespace)) {
                    throw new IllegalArgumentException("'" + entry + "': dns: needs a host name without spaces");
                }
                return new PeerIdentity(Kind.DNS, rest.toLowerCase(Locale.ROOT), null);
            }
            case "uri" -> {
                if (rest.isEmpty() || rest.chars().anyMatch(Character::isWhitespace)) {
                    throw new IllegalArgumentException("'" + entry + "': uri: needs a URI without spaces");
                }
                return new PeerIdentity(Kind.URI, rest, null);
            }
            case "ip" -> {
                if (rest.isEmpty() || !rest.matches("[0-9A-Fa-f.:]+")) {
                    throw new IllegalArgumentException("'" + entry + "': ip: needs an IPv4 or IPv6 address");
                }
                try {
                    return new PeerIdentity(Kind.IP, rest, InetAddress.getByName(rest));
                } catch (UnknownHostException e) {
                    throw new IllegalArgumentException("'" + entry + "': ip: needs an IPv4 or IPv6 address");
                }
            }
            default -> throw new IllegalArgumentException("'" + entry + "' must be one of cn:<common name>,"
                    + " dns:<name>, uri:<uri>, ip:<address>");
        }
    }

    /** Whether {@code certificate} (a verified peer's leaf certificate) carries this identity. */
    public boolean matches(X509Certificate certificate) {
        if (kind == Kind.CN) {
            return commonNames(certificate).contains(text);
        }
        Collection<List<?>> names;
        try {
            names = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return false;
        }
        if (names == null) {
            return false;
        }
        for (List<?> name : names) {
            if (name.size() < 2 || !(name.get(0) instanceof Integer type) || !(name.get(1) instanceof String value)) {
                continue;
            }
            boolean match = switch (kind) {
                case DNS -> type == SAN_DNS && value.toLowerCase(Locale.ROOT).equals(text);
                case URI -> type == SAN_URI && value.equals(text);
                case IP -> type == SAN_IP && sameAddress(value);
                case CN -> false;
            };
            if (match) {
                return true;
            }
        }
        return false;
    }

    private boolean sameAddress(String value) {
        try {
            return InetAddress.getByName(value).equals(ip);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The common names (CN) in the certificate's subject. */
    static List<String> commonNames(X509Certificate certificate) {
        try {
            List<String> names = new java.util.ArrayList<>();
            for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName(X500Principal.RFC2253)).getRdns()) {
                if ("CN".equalsIgnoreCase(rdn.getType())) {
                    names.add(String.valueOf(rdn.getValue()));
                }
            }
            return names;
        } catch (InvalidNameException e) {
            return List.of();
        }
    }

    /** How a certificate is named in logs and refusals: its subject and its alternative names. */
    public static String describe(X509Certificate certificate) {
        StringBuilder out = new StringBuilder(certificate.getSubjectX500Principal().getName(X500Principal.RFC2253));
        try {
            Collection<List<?>> names = certificate.getSubjectAlternativeNames();
            if (names != null) {
                for (List<?> name : names) {
                    if (name.size() >= 2 && name.get(0) instanceof Integer type && name.get(1) instanceof String value) {
                        String label = switch (type) {
                            case SAN_DNS -> "dns:";
                            case SAN_URI -> "uri:";
                            case SAN_IP -> "ip:";
                            default -> null;
                        };
                        if (label != null) {
                            out.append(", ").append(label).append(value);
                        }
                    }
                }
            }
        } catch (CertificateParsingException e) {
            out.append(" (unreadable alternative names)");
        }
        return out.toString();
    }

    public Kind kind() {
        return kind;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerIdentity other && kind == other.kind && text.equals(other.text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, text);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case CN -> "cn:" + text;
            case DNS -> "dns:" + text;
            case URI -> "uri:" + text;
            case IP -> "ip:" + text;
        };
    }
}
