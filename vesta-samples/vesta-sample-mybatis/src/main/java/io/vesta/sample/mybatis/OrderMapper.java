package io.vesta.sample.mybatis;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Select;

import java.util.Optional;

/** Plain SQL; {@code #{id}} is already set when the INSERT runs. */
@Mapper
interface OrderMapper {

    @Insert("insert into orders (id, item, quantity, placed_at) values (#{id}, #{item}, #{quantity}, #{placedAt})")
    void insert(Order order);

    @Select("select id, item, quantity, placed_at as placedAt from orders where id = #{id}")
    Optional<Order> findById(long id);
}
