package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// ApplyYAML server-side applies every object in a YAML or JSON stream.
func (e *Env) ApplyYAML(ctx context.Context, doc string) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(doc), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("decode yaml: %w", err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if err := e.Apply(ctx, &u); err != nil {
			return err
		}
	}
}

// Apply server-side applies one object, resolving its resource through discovery.
func (e *Env) Apply(ctx context.Context, u *unstructured.Unstructured) error {
	m, err := e.mapping(u.GroupVersionKind())
	if err != nil {
		return err
	}
	ri := e.Dynamic.Resource(m.Resource)
	var res dynamic.ResourceInterface = ri
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := u.GetNamespace()
		if ns == "" {
			ns = ArgoNamespace
		}
		res = ri.Namespace(ns)
	}
	_, err = res.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "cmp-phase-e2e", Force: true})
	if err != nil {
		return fmt.Errorf("apply %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

func (e *Env) mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(e.RestConfig)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", gvk, err)
	}
	return m, nil
}

func (e *Env) waitCRDs(ctx context.Context, names ...string) error {
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	for _, n := range names {
		err := Poll(ctx, 100*time.Millisecond, func() (bool, error) {
			u, err := e.Dynamic.Resource(gvr).Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				cm, _ := c.(map[string]any)
				if cm["type"] == "Established" && cm["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("crd %s not established: %w", n, err)
		}
	}
	return nil
}

// Poll calls f every interval until it returns true, an error, or ctx ends.
func Poll(ctx context.Context, interval time.Duration, f func() (bool, error)) error {
	for {
		ok, err := f()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
