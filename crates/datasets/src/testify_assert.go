// Package assert is the part of github.com/stretchr/testify/assert that HumanEval-X's Go tests
// call (New and Equal), with testify's equality: []byte compared with bytes.Equal, anything
// else with reflect.DeepEqual; a failed Equal marks the test failed and the test goes on.
// verdict builds HumanEval-X's Go tests against it (docs/datasets.md, "HumanEval-X").
package assert

import (
	"bytes"
	"reflect"
)

// TestingT is what the assertions report to (*testing.T).
type TestingT interface {
	Errorf(format string, args ...interface{})
}

// Assertions are assertions bound to one test.
type Assertions struct {
	t TestingT
}

// New binds assertions to t.
func New(t TestingT) *Assertions {
	return &Assertions{t: t}
}

// ObjectsAreEqual tells whether expected and actual are equal as testify tells it.
func ObjectsAreEqual(expected, actual interface{}) bool {
	if expected == nil || actual == nil {
		return expected == actual
	}
	exp, ok := expected.([]byte)
	if !ok {
		return reflect.DeepEqual(expected, actual)
	}
	act, ok := actual.([]byte)
	if !ok {
		return false
	}
	if exp == nil || act == nil {
		return exp == nil && act == nil
	}
	return bytes.Equal(exp, act)
}

func isFunc(v interface{}) bool {
	return v != nil && reflect.TypeOf(v).Kind() == reflect.Func
}

// Equal fails t unless expected and actual are equal.
func Equal(t TestingT, expected, actual interface{}, msgAndArgs ...interface{}) bool {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	if isFunc(expected) || isFunc(actual) {
		t.Errorf("Invalid operation: %#v == %#v (cannot take func type as argument)", expected, actual)
		return false
	}
	if !ObjectsAreEqual(expected, actual) {
		t.Errorf("Not equal: \nexpected: %#v\nactual  : %#v %v", expected, actual, msgAndArgs)
		return false
	}
	return true
}

// Equal fails the bound test unless expected and actual are equal.
func (a *Assertions) Equal(expected, actual interface{}, msgAndArgs ...interface{}) bool {
	if h, ok := a.t.(interface{ Helper() }); ok {
		h.Helper()
	}
	return Equal(a.t, expected, actual, msgAndArgs...)
}
