package framework

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI holds the certificates of one test environment, written as PEM files in Dir.
type PKI struct {
	Dir        string
	CACert     []byte // PEM
	AdminCert  []byte // PEM, O=system:masters
	AdminKey   []byte // PEM
	ServerCert string // path
	ServerKey  string // path
	CAFile     string // path
	SAKey      string // path, signs service account tokens
	SAPub      string // path
	ca         *keyPair
}

// ClientCert issues a client certificate of the CA for user cn in groups.
func (p *PKI) ClientCert(cn string, groups ...string) (certPEM, keyPEM []byte, err error) {
	kp, err := newKeyPair(&x509.Certificate{
		Subject:     pkix.Name{CommonName: cn, Organization: groups},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, p.ca)
	if err != nil {
		return nil, nil, err
	}
	return kp.pem()
}

type keyPair struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	der  []byte
}

func newKeyPair(tmpl *x509.Certificate, parent *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("serial: %w", err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(48 * time.Hour)
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, fmt.Errorf("create certificate %s: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse certificate: %w", err)
	}
	return &keyPair{cert: cert, key: key, der: der}, nil
}

func (k *keyPair) pem() (certPEM, keyPEM []byte, err error) {
	kb, err := x509.MarshalECPrivateKey(k.key)
	if err != nil {
		return nil, nil, fmt.Errorf("marshal key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), nil
}

// NewPKI creates a CA, a serving certificate valid for every given IP, and an admin client.
func NewPKI(dir string, ips []net.IP) (*PKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pki dir: %w", err)
	}
	ca, err := newKeyPair(&x509.Certificate{
		Subject: pkix.Name{CommonName: "cmp-phase-test-ca"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil)
	if err != nil {
		return nil, err
	}
	server, err := newKeyPair(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses: ips,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca)
	if err != nil {
		return nil, err
	}
	admin, err := newKeyPair(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, ca)
	if err != nil {
		return nil, err
	}
	sa, err := newKeyPair(&x509.Certificate{Subject: pkix.Name{CommonName: "service-accounts"}}, ca)
	if err != nil {
		return nil, err
	}
	p := &PKI{Dir: dir, ca: ca}
	files := map[string][]byte{}
	var saKey, saPub []byte
	if p.CACert, _, err = ca.pem(); err != nil {
		return nil, err
	}
	sc, sk, err := server.pem()
	if err != nil {
		return nil, err
	}
	if p.AdminCert, p.AdminKey, err = admin.pem(); err != nil {
		return nil, err
	}
	if _, saKey, err = sa.pem(); err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&sa.key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("marshal sa public key: %w", err)
	}
	saPub = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	files["ca.crt"], files["server.crt"], files["server.key"] = p.CACert, sc, sk
	files["sa.key"], files["sa.pub"] = saKey, saPub
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	p.CAFile = filepath.Join(dir, "ca.crt")
	p.ServerCert, p.ServerKey = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	p.SAKey, p.SAPub = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	return p, nil
}
