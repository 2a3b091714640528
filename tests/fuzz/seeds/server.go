// frame: example.com/srv/internal/store.(*Store).Get.func1
package store

type Store struct{ m map[string][]byte }

func (s *Store) Get(key string) ([]byte, bool) {
	done := func() bool {
		_, ok := s.m[key]
		return ok
	}
	v, ok := s.m[key]
	_ = done()
	return v, ok
}

func New() *Store { return &Store{m: map[string][]byte{}} }
