package main

// The control plane's certificates: one CA signs the apiserver's and kwok's serving
// certificates and every client certificate; a separate RSA key signs ServiceAccount tokens.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
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

// pki holds the CA and writes certificates signed by it into dir.
type pki struct {
	dir    string
	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
	serial int64
}

// keyPair names the files of one certificate and its key.
type keyPair struct {
	Cert string
	Key  string
}

func newPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "ctpool-realcluster-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	p := &pki{dir: dir, caCert: cert, caKey: key, serial: 1}
	if err := writePEM(p.path("ca.crt"), "CERTIFICATE", der); err != nil {
		return nil, err
	}
	// The controller manager's CSR signer signs with the same CA.
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	if err := writePEM(p.path("ca.key"), "EC PRIVATE KEY", keyDER); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *pki) path(name string) string { return filepath.Join(p.dir, name) }

// CAFile is the CA certificate's file.
func (p *pki) CAFile() string { return p.path("ca.crt") }

// CAData is the CA certificate in PEM.
func (p *pki) CAData() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.caCert.Raw})
}

// serving writes a server certificate for loopback and the given DNS names.
func (p *pki) serving(name string, dns []string, ips []net.IP) (keyPair, error) {
	return p.issue(name, pkix.Name{CommonName: name}, x509.ExtKeyUsageServerAuth, dns, ips)
}

// client writes a client certificate for user cn in the given groups.
func (p *pki) client(name, cn string, groups ...string) (keyPair, error) {
	return p.issue(name, pkix.Name{CommonName: cn, Organization: groups}, x509.ExtKeyUsageClientAuth, nil, nil)
}

func (p *pki) issue(name string, subject pkix.Name, usage x509.ExtKeyUsage, dns []string, ips []net.IP) (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, err
	}
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial),
		Subject:      subject,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     dns,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		return keyPair{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return keyPair{}, err
	}
	kp := keyPair{Cert: p.path(name + ".crt"), Key: p.path(name + ".key")}
	if err := writePEM(kp.Cert, "CERTIFICATE", der); err != nil {
		return keyPair{}, err
	}
	if err := writePEM(kp.Key, "EC PRIVATE KEY", keyDER); err != nil {
		return keyPair{}, err
	}
	return kp, nil
}

// serviceAccountKey writes the RSA key pair that signs and verifies ServiceAccount tokens.
func (p *pki) serviceAccountKey() (keyPair, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return keyPair{}, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return keyPair{}, err
	}
	kp := keyPair{Cert: p.path("sa.pub"), Key: p.path("sa.key")}
	if err := writePEM(kp.Key, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)); err != nil {
		return keyPair{}, err
	}
	if err := writePEM(kp.Cert, "PUBLIC KEY", pub); err != nil {
		return keyPair{}, err
	}
	return kp, nil
}

func writePEM(path, kind string, der []byte) error {
	data := pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
