//! Tests of the output merger against a host reference.
